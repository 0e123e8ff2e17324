// Runs one of the compiled CLIs (dist/src/cli/*.js) as a child process, with only PATH
// and the given environment, so a test sees exactly what an operator would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(name: string, args: readonly string[], env: Record<string, string>, stdin?: string): Promise<CliRun> {
  const cliPath = fileURLToPath(new URL(`../../src/cli/${name}.js`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}
