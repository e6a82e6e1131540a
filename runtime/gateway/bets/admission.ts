/**
 * How many placements a gateway takes on at once (docs/gateway-api.md#profile-a-post-apibet,
 * docs/decisions.md#placements-are-admitted-not-queued): beyond `limit` placements in flight, a new
 * one is refused at once with 503 and Retry-After, before anything is read or signed for it, rather
 * than queued behind work it would wait on past its answer deadline. Each refusal is counted.
 *
 * @example
 *   const admission = new PlacementAdmission(256, () => metrics.betShed());
 *   const out = await admission.run(() => placeOnChain(...)); // or the `busy` refusal
 */
import { MESSAGES, refusal, type GatewayRefusal } from '../refusals.ts';

export class PlacementAdmission {
  private inFlight = 0;

  constructor(
    /** placements in flight at most */
    readonly limit: number,
    /** told of every placement refused for it */
    private readonly onShed: () => void = () => undefined,
  ) {}

  /** placements in flight now */
  get placing(): number {
    return this.inFlight;
  }

  /** Runs `place` if fewer than `limit` placements are in flight, else answers the `busy` refusal at once. */
  async run<T>(place: () => Promise<T | GatewayRefusal>): Promise<T | GatewayRefusal> {
    if (this.inFlight >= this.limit) {
      this.onShed();
      return refusal('busy', MESSAGES.busy);
    }
    this.inFlight++;
    try {
      return await place();
    } finally {
      this.inFlight--;
    }
  }
}
