import { describe, expect, it } from 'vitest';
import { compileTemplate, type TemplateContext } from '../../shared/rules/template.js';

function render(source: string, event: Record<string, unknown>, context?: TemplateContext): string {
  const compiled = compileTemplate(source);
  if (!compiled.ok) throw new Error(compiled.problems.map((problem) => problem.message).join('; '));
  return compiled.template.render(event, context);
}

const projectId = '64b5ca17f1a3d40012ab3d11';

describe('template context fields', () => {
  it('reads context fields, and falls through to the next choice when the context lacks one', () => {
    // Prepare
    const context = { values: { projectName: 'payments-prod' } };

    // Act
    const named = render('{{context.projectName | groupId}}', { groupId: projectId }, context);
    const unnamed = render('{{context.projectName | groupId}}', { groupId: projectId });
    const empty = render('[{{context.orgName}}]', {});

    // Assess
    expect(named).toBe('payments-prod');
    expect(unnamed).toBe(projectId);
    expect(empty).toBe('[]');
  });

  it('shows a named id by name only when the event holds that very id', () => {
    // Prepare
    const context = { namedIds: { groupId: { id: projectId, shown: 'payments-prod (64b5…d11)' } } };

    // Act
    const same = render('project {{groupId | "?"}}', { groupId: projectId }, context);
    const other = render('project {{groupId | "?"}}', { groupId: 'ffffffffffffffffffffffff' }, context);
    const nested = render('{{raw.groupId}}', { raw: { groupId: projectId } }, context);

    // Assess
    expect(same).toBe('project payments-prod (64b5…d11)');
    expect(other).toBe('project ffffffffffffffffffffffff');
    expect(nested).toBe(projectId);
  });

  it('falls through an empty context field, and reads a context that has only values or only named ids', () => {
    // Prepare
    const onlyValues = { values: { projectName: '' } };
    const onlyNamed = { namedIds: { groupId: { id: projectId, shown: 'payments-prod (64b5…d11)' } } };

    // Act
    const emptyName = render('{{context.projectName | groupId}}', { groupId: projectId }, onlyValues);
    const withoutNames = render('{{groupId}}', { groupId: projectId }, onlyValues);
    const withoutValues = render('{{context.projectName | "unnamed"}}', {}, onlyNamed);

    // Assess
    expect(emptyName).toBe(projectId);
    expect(withoutNames).toBe(projectId);
    expect(withoutValues).toBe('unnamed');
  });

  it('refuses a context field it does not know, listing those it does', () => {
    // Act
    const compiled = compileTemplate('{{context.projectname}}');

    // Assess
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? '' : compiled.problems[0]?.message).toMatch(
      /"context\.projectname" is not a context field; use one of context\.org, .*context\.projectName/,
    );
  });
});
