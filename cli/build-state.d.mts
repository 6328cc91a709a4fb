/** Where `npm run build` records what it built from, relative to the package's folder. */
export declare const BUILD_INFO_PATH: string;

/** Whether the build in dist/ was made from the sources as they are now (see build-state.mjs). */
export declare function buildState(root: string): 'current' | 'stale' | 'missing';
