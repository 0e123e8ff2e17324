/** The parsed spec files under a root: what buildOutputs reads. */
export interface Inputs {
  readonly openapi: Record<string, unknown>;
  readonly operators: Record<string, unknown>;
  readonly dtos: Record<string, unknown>;
  readonly catalogTypes: string;
}
export declare function readInputs(root: string): Promise<Inputs>;
/** Every file of generated/, relative path -> exact text; throws SpecError on bad input. */
export declare function buildOutputs(inputs: Inputs): Promise<Map<string, string>>;
/** Relative paths whose file under root is missing or differs from the built text. */
export declare function staleFiles(root: string, outputs: Map<string, string>): Promise<string[]>;
