/**
 * Shuffle sharding as kube's APF does it (apiserver/pkg/util/shufflesharding): a flow's 64-bit hash
 * deals a hand of `handSize` distinct queues out of `deckSize`, using the hash as a mixed-radix
 * number (deckSize, deckSize-1, ...), so two flows rarely share their whole hand.
 */
import { createHash } from 'node:crypto';

/** kube's flow hash: SHA-256 of the schema name, a NUL byte and the distinguisher; the first 8 bytes, little-endian */
export function hashFlow(flowSchemaName: string, distinguisher: string): bigint {
  const digest = createHash('sha256').update(flowSchemaName).update(Buffer.from([0])).update(distinguisher).digest();
  return digest.readBigUInt64LE(0);
}

/** the queue indexes of the hand, in dealing order; every index is below deckSize and distinct */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const size = Math.min(handSize, deckSize);
  const digits: number[] = [];
  let rest = hash;
  for (let i = 0; i < size; i++) {
    const radix = BigInt(deckSize - i);
    digits.push(Number(rest % radix));
    rest /= radix;
  }
  // digit i picks among the cards not dealt yet: step over every earlier card at or below it
  const hand: number[] = [];
  for (const digit of digits) {
    let card = digit;
    for (const dealt of [...hand].sort((a, b) => a - b)) if (card >= dealt) card++;
    hand.push(card);
  }
  return hand;
}
