// What a test needs of the machine it runs on. A test meant for CI that cannot run there
// fails with the reason, rather than skipping itself: a skip would pass the run unseen.
export function requireOfMachine(condition: boolean, reason: string): void {
  if (!condition) throw new Error(`this machine cannot run this test: ${reason}`);
}
