/** The version this supervisor reports to agents (MCP's serverInfo, the bridge's hello) and journals when it starts. */
export const OVERSEER_VERSION = '0.1.0';
