/** The layer table of scripts/layers.mjs: one entry per folder. */
export interface Layer {
  folder: string;
  why: string;
  may: string[];
  packages?: string[];
  testsMay?: string[];
  testPackages?: string[];
  reach?: string;
  testOnly?: boolean;
}
export declare function layerOf(file: string): Layer | undefined;
export declare function checkImport(file: string, spec: string): string | undefined;
export declare const layersPlugin: unknown;
export declare function layerTable(): string;
/** The layers, as scripts/layers.mjs lists them. */
export declare const LAYERS: readonly Layer[];
/** From each layer, the other layers its `may` reaches. */
export declare function allowGraph(): Map<string, string[]>;
/** Every loop of layers that may import each other, as the path that closes it. */
export declare function layerCycles(graph?: ReadonlyMap<string, readonly string[]>): string[];
