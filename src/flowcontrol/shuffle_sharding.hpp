#pragma once

#include <cstdint>

namespace kube::flowcontrol {

// Mirrors shufflesharding.Dealer: deals `handSize` distinct cards out of a
// deck of `deckSize` (a level's queues) from a flow's hash, the same hand for
// the same hash. Valid when 0 < handSize <= deckSize <= 2^26 and
// requiredEntropyBits(deckSize, handSize) <= kMaxHashBits (the configuration
// side validates this as kube does).
inline constexpr int kMaxHashBits = 60;
inline constexpr int kMaxHandSize = 64;

// ceil(log2(deckSize)) * handSize: how many bits of hash a hand consumes.
int requiredEntropyBits(int deckSize, int handSize);

// Writes the hand into hand[0..handSize): in the order dealt.
void dealIntoHand(std::uint64_t hashValue, int deckSize, int handSize, int* hand);

}  // namespace kube::flowcontrol
