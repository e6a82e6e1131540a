/** A port another process already listens on: every listener of the project says so in one line instead of a stack trace. */
export class PortInUse extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} is in use (${host}:${port}); stop the other process or choose another port`);
    this.name = 'PortInUse';
  }
}
