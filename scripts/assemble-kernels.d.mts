/** Types of assemble-kernels.mjs, for the test that checks the generated modules. */
export const KERNELS_DIR: string;
export function assembleWat(name: string, source: string): Promise<Uint8Array>;
export function kernelModule(watFile: string, bytes: Uint8Array): string;
export function kernelFiles(): { wat: string; module: string }[];
