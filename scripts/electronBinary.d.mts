/** The installed Electron binary under `root` (or $OVERSEER_ELECTRON), or a plain reason why it is missing. */
export function electronBinary(root: string): { binary: string; why?: undefined } | { binary?: undefined; why: string };
