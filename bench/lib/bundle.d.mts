// Types for test/size, which imports bundleSize from this plain-JS helper.
export interface BundleSize {
  code: string;
  minified: number;
  gzip: number;
  nodeImports: string[];
  /** esbuild's metafile: per input, bytesInOutput. */
  metafile: { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> };
}
export declare function bundleSize(agentFile: string, exportName?: string, extraPlugins?: unknown[]): Promise<BundleSize>;
