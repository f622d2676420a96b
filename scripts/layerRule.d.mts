/** The layer table of scripts/layers.mjs: one entry per folder. */
export interface Layer {
  folder: string;
  why: string;
  may: string[];
  packages?: string[];
  testsMay?: string[];
  testPackages?: string[];
  reach?: string;
}
export declare function layerOf(file: string): Layer | undefined;
export declare function checkImport(file: string, spec: string): string | undefined;
export declare const layersPlugin: unknown;
export declare function layerTable(): string;
