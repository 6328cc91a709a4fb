// undici's modules as `undici-parts.ts` imports them: it gives them undici's public types.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: unknown;
  export default Agent;
}
declare module 'undici/lib/core/errors.js' {
  const errors: unknown;
  export default errors;
}
