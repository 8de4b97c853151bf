#include "flowcontrol/shuffle_sharding.hpp"

namespace kube::flowcontrol {

int requiredEntropyBits(int deckSize, int handSize) {
    int bits = 0;
    while ((std::uint64_t{1} << bits) < static_cast<std::uint64_t>(deckSize)) {
        bits++;
    }
    return bits * handSize;
}

void dealIntoHand(std::uint64_t hashValue, int deckSize, int handSize, int* hand) {
    // Mixed-radix digits of the hash: digit i picks among the deckSize - i
    // cards not dealt yet.
    int remainders[kMaxHandSize];
    for (int i = 0; i < handSize; i++) {
        std::uint64_t radix = static_cast<std::uint64_t>(deckSize - i);
        remainders[i] = static_cast<int>(hashValue % radix);
        hashValue /= radix;
    }

    // Turns each digit into a card, stepping over the earlier digits as
    // kube's dealer does (it compares with the digits, not the cards).
    for (int i = 0; i < handSize; i++) {
        int card = remainders[i];
        for (int j = i; j > 0; j--) {
            if (card >= remainders[j - 1]) {
                card++;
            }
        }
        hand[i] = card;
    }
}

}  // namespace kube::flowcontrol
