/**
 * The child process of one benchmark scenario (see `runBenchmarks`): runs the scenario it is asked
 * for and answers with its results. A scenario in a process of its own can be stopped whatever it is
 * doing when it outlives its time limit, and it inherits no heap, JIT state or timers from the
 * scenarios before it.
 */
import { runScenario, type ScenarioInput } from '../scenario.js';
import { serveRpc } from './child-rpc.js';

serveRpc({
  run: (input: ScenarioInput) => runScenario(input),
});
