import pkg from "../package.json" with { type: "json" }

export const VERSION: string = pkg.version
/** The Node versions orch supports: package.json's `engines.node` (">=22.19"). */
export const NODE_ENGINES: string = pkg.engines.node
