#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flowcontrol/max_in_flight.hpp"
#include "flowcontrol/queue_set.hpp"
#include "flowcontrol/shuffle_sharding.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

using namespace kube::flowcontrol;

namespace {

constexpr std::int64_t kMs = 1000000;

std::shared_ptr<Level> limitedLevel(std::string name, int seats, int queues, int handSize,
                                    int queueLengthLimit) {
    auto l = std::make_shared<Level>();
    l->name = std::move(name);
    l->uid = "uid-" + l->name;
    l->nominalSeats = seats;
    l->lendableSeats = 0;
    l->borrowingSeats = 0;
    l->queuing = {queues, handSize, queueLengthLimit};
    return l;
}

std::shared_ptr<Configuration> configOf(std::vector<std::shared_ptr<Level>> levels) {
    auto c = std::make_shared<Configuration>();
    for (auto& l : levels) {
        c->serverConcurrencyLimit += l->nominalSeats;
        c->levels.push_back(l);
    }
    return c;
}

// One shared block, as a zone holds it, and the lock its callers take.
struct Zone {
    Zone() : state(std::make_unique<SharedState>()) { Dispatcher(*state).initialize(); }
    std::unique_ptr<SharedState> state;
    std::mutex mutex;
};

int registerWorker(Dispatcher& d, int pid, int slot) {
    Wakes wakes;
    return d.registerOwner(
        pid, slot, 1, [](std::int32_t) { return true; }, wakes);
}

// kube's Dealer on sample values (computed with its algorithm: mixed-radix
// digits of the hash, each stepped over the earlier digits).
void dealer_matches_kube(void**) {
    struct Case {
        std::uint64_t hash;
        int deck, hand;
        std::vector<int> want;
    } cases[] = {
        {0, 64, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
        {0x0123456789abcdefULL, 128, 6, {111, 33, 73, 64, 85, 1}},
        {0xdeadbeefcafebabeULL, 64, 8, {62, 52, 53, 30, 23, 46, 45, 27}},
        {12345678901234567ULL, 16, 4, {7, 0, 1, 6}},
        {0xffffffffffffffffULL, 512, 6, {511, 1, 127, 94, 196, 285}},
    };
    for (const Case& c : cases) {
        int hand[kMaxHandSize];
        dealIntoHand(c.hash, c.deck, c.hand, hand);
        for (int i = 0; i < c.hand; i++) {
            assert_int_equal(hand[i], c.want[i]);
        }
        // the same flow, the same hand
        int again[kMaxHandSize];
        dealIntoHand(c.hash, c.deck, c.hand, again);
        assert_memory_equal(hand, again, sizeof(int) * c.hand);
    }
    assert_int_equal(requiredEntropyBits(1024, 6), 60);
    assert_int_equal(requiredEntropyBits(512, 8), 72);
}

// Hands hold distinct cards of the deck.
void dealer_hands_are_distinct_cards(void**) {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int n = 0; n < 1000; n++) {
        h = h * 6364136223846793005ULL + 1442695040888963407ULL;
        int hand[8];
        dealIntoHand(h, 128, 8, hand);
        for (int i = 0; i < 8; i++) {
            assert_true(hand[i] >= 0 && hand[i] < 128);
            for (int j = 0; j < i; j++) {
                assert_int_not_equal(hand[i], hand[j]);
            }
        }
    }
}

// A flow's requests wait in the shortest queue of its hand: with a hand of
// two, a flow's second waiting request goes to the other queue of the hand.
void waiting_requests_take_the_shortest_queue_of_the_hand(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("l", 1, 16, 2, 10)}), kMs, wakes);
    int a = registerWorker(d, 100, 0);

    int hand[2];
    dealIntoHand(77, 16, 2, hand);

    Admission first = d.admit("l", 77, a, kMs, wakes);
    assert_int_equal(static_cast<int>(first.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    Admission w1 = d.admit("l", 77, a, kMs, wakes);
    Admission w2 = d.admit("l", 77, a, kMs, wakes);
    assert_int_equal(static_cast<int>(w1.outcome), static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(static_cast<int>(w2.outcome), static_cast<int>(Admission::Outcome::Queued));

    const WaitingSlot& s1 = z.state->waiting[w1.ticket.slot];
    const WaitingSlot& s2 = z.state->waiting[w2.ticket.slot];
    assert_true(s1.queue == hand[0] || s1.queue == hand[1]);
    assert_true(s2.queue == hand[0] || s2.queue == hand[1]);
    assert_int_not_equal(s1.queue, s2.queue);
}

// Fair queuing: a heavy flow with many waiting requests does not starve a
// light one; dispatch alternates while both wait, and each flow's requests
// keep their order.
void fair_queuing_alternates_between_flows(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    // one seat; hands of one card: flow hash 0 lands in queue 0, 1 in 1
    d.applyConfiguration(*configOf({limitedLevel("l", 1, 8, 1, 50)}), kMs, wakes);
    int owner = registerWorker(d, 100, 0);

    std::int64_t now = kMs;
    Admission running = d.admit("l", 0, owner, now, wakes);
    assert_int_equal(static_cast<int>(running.outcome),
                     static_cast<int>(Admission::Outcome::Execute));

    std::vector<std::pair<std::string, Ticket>> parked;
    for (int i = 1; i <= 5; i++) {
        Admission a = d.admit("l", 0, owner, now, wakes);
        assert_int_equal(static_cast<int>(a.outcome), static_cast<int>(Admission::Outcome::Queued));
        parked.emplace_back("H" + std::to_string(i), a.ticket);
    }
    for (int i = 1; i <= 2; i++) {
        Admission a = d.admit("l", 1, owner, now, wakes);
        assert_int_equal(static_cast<int>(a.outcome), static_cast<int>(Admission::Outcome::Queued));
        parked.emplace_back("L" + std::to_string(i), a.ticket);
    }
    assert_int_equal(d.stats("l").waiting, 7);

    // every request takes 10 ms; each release dispatches the next one
    std::string order;
    Seat seat = running.seat;
    for (int n = 0; n < 7; n++) {
        now += 10 * kMs;
        d.release(seat, owner, now, wakes);
        int found = 0;
        for (auto it = parked.begin(); it != parked.end();) {
            bool gone = false;
            std::optional<Seat> s = d.poll(it->second, gone);
            assert_false(gone);
            if (s) {
                order += it->first;
                seat = *s;
                found++;
                it = parked.erase(it);
            } else {
                ++it;
            }
        }
        assert_int_equal(found, 1);
        assert_int_equal(d.stats("l").seatsInUse, 1);
    }
    d.release(seat, owner, now + 10 * kMs, wakes);

    assert_string_equal(order.c_str(), "L1H1L2H2H3H4H5");
    assert_int_equal(d.stats("l").seatsInUse, 0);
    assert_int_equal(d.stats("l").waiting, 0);
}

// Two workers share the block: seats never exceed the level's; a release
// by worker B dispatches worker A's parked request and says to wake A.
void two_workers_share_the_seats(void**) {
    Zone z;
    Dispatcher a(*z.state);
    Dispatcher b(*z.state);
    Wakes wakes;
    a.applyConfiguration(*configOf({limitedLevel("l", 2, 8, 2, 10)}), kMs, wakes);
    int ownerA = registerWorker(a, 100, 0);
    int ownerB = registerWorker(b, 200, 1);
    assert_int_not_equal(ownerA, ownerB);

    Admission a1 = a.admit("l", 1, ownerA, kMs, wakes);
    Admission b1 = b.admit("l", 2, ownerB, kMs, wakes);
    assert_int_equal(static_cast<int>(a1.outcome), static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(static_cast<int>(b1.outcome), static_cast<int>(Admission::Outcome::Execute));

    Admission a2 = a.admit("l", 1, ownerA, kMs, wakes);
    assert_int_equal(static_cast<int>(a2.outcome), static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(a.stats("l").seatsInUse, 2);

    bool gone = false;
    assert_false(a.poll(a2.ticket, gone).has_value());

    Wakes fromB;
    b.release(b1.seat, ownerB, 2 * kMs, fromB);
    assert_true(fromB.has(ownerA));
    assert_false(fromB.has(ownerB));
    assert_int_equal(b.ownerWorkerSlot(ownerA), 0);

    std::optional<Seat> s = a.poll(a2.ticket, gone);
    assert_true(s.has_value());
    assert_int_equal(a.stats("l").seatsInUse, 2);

    Wakes w;
    a.release(a1.seat, ownerA, 3 * kMs, w);
    a.release(*s, ownerA, 3 * kMs, w);
    assert_int_equal(a.stats("l").seatsInUse, 0);
}

// The concurrent tests' zone: one level "l" of 3 seats (16 queues, hand of
// 4, 100 waiting a queue) and two workers, whose owner indexes fill `owners`.
void setUpTwoWorkers(Zone& z, int owners[2]) {
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("l", 3, 16, 4, 100)}), kMs, wakes);
    owners[0] = registerWorker(d, 100, 0);
    owners[1] = registerWorker(d, 200, 1);
}

// A worker's parked requests that were dispatched (or forgotten) leave
// `parked`; the dispatched ones' seats join `running`. Under the lock.
void collectDispatched(Dispatcher& d, std::vector<Ticket>& parked, std::vector<Seat>& running) {
    for (auto it = parked.begin(); it != parked.end();) {
        bool gone = false;
        std::optional<Seat> s = d.poll(*it, gone);
        if (s) {
            running.push_back(*s);
        }
        it = (s || gone) ? parked.erase(it) : it + 1;
    }
}

// Many admissions and releases from two threads standing for two workers,
// each under the zone's lock: the seats in use never pass the limit and all
// return.
void concurrent_workers_never_exceed_the_seats(void**) {
    Zone z;
    Wakes wakes;
    int owners[2];
    setUpTwoWorkers(z, owners);

    int over = 0;
    auto worker = [&](int self) {
        Dispatcher d(*z.state);
        std::vector<Seat> running;
        std::vector<Ticket> parked;
        std::int64_t now = kMs;
        for (int n = 0; n < 20000; n++) {
            std::lock_guard<std::mutex> lock(z.mutex);
            now += 1000;
            Wakes w;
            if (n % 3 != 2) {
                Admission ad =
                    d.admit("l", static_cast<std::uint64_t>(n % 7), owners[self], now, w);
                if (ad.outcome == Admission::Outcome::Execute) {
                    running.push_back(ad.seat);
                } else if (ad.outcome == Admission::Outcome::Queued) {
                    parked.push_back(ad.ticket);
                }
            } else if (!running.empty()) {
                d.release(running.back(), owners[self], now, w);
                running.pop_back();
            }
            collectDispatched(d, parked, running);
            if (d.stats("l").seatsInUse > 3) {
                over++;
            }
        }
        std::lock_guard<std::mutex> lock(z.mutex);
        Wakes w;
        for (Ticket t : parked) {
            std::optional<Seat> s = d.cancel(t, false, now, w);
            if (s) {
                running.push_back(*s);
            }
        }
        for (const Seat& s : running) {
            d.release(s, owners[self], now, w);
        }
    };

    std::thread t0(worker, 0);
    std::thread t1(worker, 1);
    t0.join();
    t1.join();

    Dispatcher d(*z.state);
    assert_int_equal(over, 0);
    assert_true(d.stats("l").dispatched > 100);
    assert_int_equal(d.stats("l").waiting, 0);
    assert_int_equal(d.stats("l").seatsInUse, 0);
}

// Leases: a finished request's seat, kept by its worker, is taken and given
// back without the lock, stays counted at its level, and goes back to the
// level as soon as a request of any worker finds no free seat; a lease is
// kept only while another seat is free.
void leases_keep_seats_between_requests(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("l", 2, 8, 2, 4)}), kMs, wakes);
    int a = registerWorker(d, 100, 0);
    int b = registerWorker(d, 200, 1);
    std::uint64_t gen = d.generation();

    Admission first = d.admit("l", 1, a, kMs, wakes);
    assert_int_equal(static_cast<int>(first.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    int level = first.seat.level;
    assert_false(d.takeLease(level, a, gen));
    assert_true(d.keepAsLease(first.seat, a, 2 * kMs));
    assert_int_equal(d.stats("l").seatsInUse, 1);
    assert_int_equal(z.state->level[level].queueDemand, 0);  // left its queue

    assert_false(d.takeLease(level, b, gen));      // b has none
    assert_false(d.takeLease(level, a, gen + 1));  // another configuration
    assert_true(d.takeLease(level, a, gen));
    assert_false(d.takeLease(level, a, gen));  // one idle seat, in use now
    Seat leased{level, -1, 3 * kMs, true, gen};
    assert_true(d.returnLease(leased, a));
    assert_int_equal(d.stats("l").seatsInUse, 1);
    assert_true(d.takeLease(level, a, gen));
    assert_true(d.returnLease(leased, a));

    // b takes the other seat; no lease while it is the last one
    Admission second = d.admit("l", 2, b, 4 * kMs, wakes);
    assert_int_equal(static_cast<int>(second.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(d.stats("l").seatsInUse, 2);
    // a third request finds no free seat: a's idle lease goes back to it
    Admission third = d.admit("l", 3, b, 5 * kMs, wakes);
    assert_int_equal(static_cast<int>(third.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(d.stats("l").seatsInUse, 2);
    assert_false(d.takeLease(level, a, gen));
    assert_int_equal(z.state->owner[a].held[level], 0);

    assert_false(d.keepAsLease(second.seat, b, 6 * kMs));  // no seat would be free
    d.release(second.seat, b, 6 * kMs, wakes);
    assert_true(d.keepAsLease(third.seat, b, 6 * kMs));
    assert_int_equal(d.stats("l").seatsInUse, 1);
    assert_int_equal(d.reclaimIdleLeases(), 1);
    assert_int_equal(d.stats("l").seatsInUse, 0);
    assert_int_equal(z.state->owner[b].held[level], 0);
    assert_int_equal(z.state->owner[b].leased[level], 0);
    assert_int_equal(static_cast<int>(z.state->leaseOwners[0]), 0);
}

// While a request waits, no seat is leased or returned idle: a leased seat
// in use goes back under the lock and dispatches the waiter; a new
// configuration and a dead worker give back their leases.
void leases_give_way_to_waiting_requests(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    auto config = configOf({limitedLevel("l", 2, 4, 1, 10)});
    d.applyConfiguration(*config, kMs, wakes);
    int a = registerWorker(d, 100, 0);
    int b = registerWorker(d, 200, 1);
    std::uint64_t gen = d.generation();

    Admission first = d.admit("l", 1, a, kMs, wakes);
    assert_true(d.keepAsLease(first.seat, a, kMs));
    int level = first.seat.level;
    assert_true(d.takeLease(level, a, gen));
    Seat leased{level, -1, 2 * kMs, true, gen};

    Admission second = d.admit("l", 2, b, 2 * kMs, wakes);
    Admission waiter = d.admit("l", 3, b, 2 * kMs, wakes);
    assert_int_equal(static_cast<int>(second.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(static_cast<int>(waiter.outcome),
                     static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(z.state->level[level].leaseGate, 1);

    assert_false(d.returnLease(leased, a));
    assert_false(d.keepAsLease(leased, a, 3 * kMs));
    Wakes w;
    d.release(leased, a, 3 * kMs, w);
    assert_true(w.has(b));
    bool gone = false;
    std::optional<Seat> s = d.poll(waiter.ticket, gone);
    assert_true(s.has_value());
    assert_int_equal(z.state->level[level].leaseGate, 0);
    assert_int_equal(z.state->owner[a].leased[level], 0);
    assert_int_equal(static_cast<int>(z.state->owner[a].leaseLevels), 0);

    // a new configuration reclaims the idle leases and stales the others
    d.release(*s, b, 4 * kMs, wakes);
    assert_true(d.keepAsLease(second.seat, b, 4 * kMs));
    assert_int_equal(d.stats("l").seatsInUse, 1);
    d.applyConfiguration(*config, 5 * kMs, wakes);
    assert_int_equal(d.stats("l").seatsInUse, 0);
    assert_false(d.takeLease(level, b, gen));
    Seat old{level, -1, 5 * kMs, true, gen};
    assert_false(d.returnLease(old, b));

    // a dead worker's lease is swept with its seats
    Admission last = d.admit("l", 4, b, 6 * kMs, wakes);
    assert_true(d.keepAsLease(last.seat, b, 6 * kMs));
    assert_int_equal(d.stats("l").seatsInUse, 1);
    Wakes swept;
    d.registerOwner(
        300, 2, 7 * kMs, [](std::int32_t pid) { return pid != 200; }, swept);
    assert_int_equal(d.stats("l").seatsInUse, 0);
    assert_int_equal(static_cast<int>(z.state->leaseOwners[0] >> b) & 1, 0);
}

// A level that neither lends nor borrows keeps its leases while another
// level's requests queue: none of them could use its seats. Once it lends
// to a level that may borrow, that level's waiting requests close its
// leases and take back the idle ones.
void leases_close_only_where_waiting_requests_could_use_the_seats(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    auto noisy = limitedLevel("noisy", 1, 8, 1, 4);
    auto quiet = limitedLevel("quiet", 2, 8, 1, 4);
    d.applyConfiguration(*configOf({noisy, quiet}), kMs, wakes);
    int a = registerWorker(d, 100, 0);
    int b = registerWorker(d, 200, 1);
    std::uint64_t gen = d.generation();

    Admission q1 = d.admit("quiet", 1, a, kMs, wakes);
    int level = q1.seat.level;
    assert_true(d.keepAsLease(q1.seat, a, kMs));
    assert_int_equal(static_cast<int>(d.admit("noisy", 2, b, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    Admission waiter = d.admit("noisy", 2, b, kMs, wakes);
    assert_int_equal(static_cast<int>(waiter.outcome),
                     static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(d.stats("noisy").waiting, 1);
    assert_int_equal(z.state->level[level].leaseGate, 0);
    assert_true(d.takeLease(level, a, gen));  // not reclaimed by noisy's admissions
    Seat leased{level, -1, 2 * kMs, true, gen};
    assert_true(d.returnLease(leased, a));
    assert_int_equal(d.stats("quiet").seatsInUse, 1);

    // quiet lends one seat, noisy may borrow: noisy borrows it, then waits
    quiet->lendableSeats = 1;
    noisy->borrowingSeats = -1;
    d.applyConfiguration(*configOf({noisy, quiet}), 3 * kMs, wakes);
    gen = d.generation();
    bool gone = false;
    std::optional<Seat> borrowed = d.poll(waiter.ticket, gone);
    assert_true(borrowed.has_value());  // dispatched into quiet's lent seat
    Admission q2 = d.admit("quiet", 3, a, 3 * kMs, wakes);
    assert_int_equal(static_cast<int>(q2.outcome), static_cast<int>(Admission::Outcome::Execute));
    assert_true(d.keepAsLease(q2.seat, a, 3 * kMs));
    assert_true(d.takeLease(level, a, gen));
    Seat inUse{level, -1, 4 * kMs, true, gen};
    Admission second = d.admit("noisy", 4, b, 4 * kMs, wakes);
    assert_int_equal(static_cast<int>(second.outcome),
                     static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(z.state->level[level].leaseGate, 1);
    assert_false(d.returnLease(inUse, a));  // released under the lock instead
    Wakes w;
    d.release(inUse, a, 5 * kMs, w);
    d.release(*borrowed, b, 5 * kMs, w);
    std::optional<Seat> last = d.poll(second.ticket, gone);
    assert_true(last.has_value());
    assert_int_equal(z.state->level[level].leaseGate, 0);
}

// Two threads standing for two workers take and return leases without the
// lock and admit, keep and release under it: the seats in use never pass
// the limit, and no request is left waiting behind an idle lease.
void concurrent_leases_never_strand_a_waiter(void**) {
    Zone z;
    Wakes wakes;
    int owners[2];
    setUpTwoWorkers(z, owners);
    const std::uint64_t gen = Dispatcher(*z.state).generation();

    std::atomic<int> over{0};
    std::atomic<int> taken{0};
    std::atomic<int> queued{0};
    std::atomic<int> ready{0};
    std::vector<Ticket> leftover[2];
    auto worker = [&](int self) {
        Dispatcher d(*z.state);
        int owner = owners[self];
        std::vector<Seat> running;
        std::vector<Ticket>& parked = leftover[self];
        int level = -1;
        auto finish = [&](const Seat& seat, std::int64_t now) {
            if (d.returnLease(seat, owner)) {
                return;
            }
            std::lock_guard<std::mutex> lock(z.mutex);
            Wakes w;
            if (!d.keepAsLease(seat, owner, now)) {
                d.release(seat, owner, now, w);
            }
        };
        std::minstd_rand rng(static_cast<unsigned>(self) + 1);
        std::int64_t now = kMs;
        ready++;
        while (ready.load() < 2) {
        }
        for (int n = 0; n < 200000; n++) {
            now += 1000;
            if (n % 16 == 0) {
                std::this_thread::yield();  // the two interleave on a busy machine too
            }
            if (running.size() + parked.size() < 3 && rng() % 10 < 5) {
                if (level >= 0 && d.takeLease(level, owner, gen)) {
                    running.push_back({level, -1, now, true, gen});
                    taken++;
                    continue;
                }
                std::lock_guard<std::mutex> lock(z.mutex);
                Wakes w;
                Admission ad = d.admit("l", static_cast<std::uint64_t>(n % 7), owner, now, w);
                if (ad.outcome == Admission::Outcome::Execute) {
                    running.push_back(ad.seat);
                    level = ad.seat.level;
                } else if (ad.outcome == Admission::Outcome::Queued) {
                    queued++;
                    parked.push_back(ad.ticket);
                }
                if (d.stats("l").seatsInUse > 3) {
                    over++;
                }
            } else if (!running.empty()) {
                Seat seat = running.back();
                running.pop_back();
                finish(seat, now);
            }
            std::lock_guard<std::mutex> lock(z.mutex);
            collectDispatched(d, parked, running);
        }
        for (const Seat& s : running) {
            finish(s, now);
        }
    };

    std::thread t0(worker, 0);
    std::thread t1(worker, 1);
    t0.join();
    t1.join();

    // every request still parked was dispatched when the last seats came
    // back, none waits behind a lease
    Dispatcher d(*z.state);
    for (bool progress = true; progress;) {
        progress = false;
        for (int self = 0; self < 2; self++) {
            for (auto it = leftover[self].begin(); it != leftover[self].end();) {
                bool gone = false;
                std::optional<Seat> s = d.poll(*it, gone);
                assert_false(gone);
                if (!s) {
                    ++it;
                    continue;
                }
                d.release(*s, owners[self], 9 * kMs, wakes);
                it = leftover[self].erase(it);
                progress = true;
            }
        }
    }
    assert_true(leftover[0].empty() && leftover[1].empty());
    printf("leases taken: %d, requests queued: %d\n", taken.load(), queued.load());
    assert_true(taken.load() > 1000);
    assert_true(queued.load() > 0);
    assert_int_equal(over.load(), 0);
    assert_int_equal(d.stats("l").waiting, 0);
    d.reclaimIdleLeases();
    assert_int_equal(d.stats("l").seatsInUse, 0);
}

// Reject levels refuse at once; exempt levels bypass; a full queue
// refuses; a wait that times out is counted and leaves the queue.
void reject_exempt_queue_limit_and_timeout(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    auto reject = limitedLevel("reject", 1, 0, 0, 0);
    reject->reject = true;
    auto exempt = limitedLevel("exempt", 0, 0, 0, 0);
    exempt->exempt = true;
    d.applyConfiguration(*configOf({reject, exempt, limitedLevel("q", 1, 1, 1, 2)}), kMs, wakes);
    int o = registerWorker(d, 100, 0);

    assert_int_equal(static_cast<int>(d.admit("reject", 5, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(static_cast<int>(d.admit("reject", 5, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Rejected));
    for (int i = 0; i < 3; i++) {
        assert_int_equal(static_cast<int>(d.admit("exempt", 5, o, kMs, wakes).outcome),
                         static_cast<int>(Admission::Outcome::Exempt));
    }
    assert_int_equal(static_cast<int>(d.admit("nosuch", 5, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Unknown));

    assert_int_equal(static_cast<int>(d.admit("q", 5, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    Admission w1 = d.admit("q", 5, o, kMs, wakes);
    Admission w2 = d.admit("q", 6, o, kMs, wakes);
    assert_int_equal(static_cast<int>(w2.outcome), static_cast<int>(Admission::Outcome::Queued));
    // queueLengthLimit 2 reached
    assert_int_equal(static_cast<int>(d.admit("q", 7, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Rejected));

    assert_false(d.cancel(w1.ticket, true, 2 * kMs, wakes).has_value());
    assert_int_equal(d.stats("q").waiting, 1);
    assert_int_equal(static_cast<int>(d.stats("q").timedOut), 1);
    // a canceled ticket is gone
    bool gone = false;
    assert_false(d.poll(w1.ticket, gone).has_value());
    assert_true(gone);
}

// A new configuration keeps the seats in use: lowering a limit under the
// seats held dispatches nothing until enough are released; a removed level
// drains and frees its slot.
void new_configuration_keeps_seats_in_use(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("l", 3, 4, 1, 10)}), kMs, wakes);
    int o = registerWorker(d, 100, 0);

    std::vector<Seat> seats;
    for (int i = 0; i < 3; i++) {
        seats.push_back(d.admit("l", 0, o, kMs, wakes).seat);
    }
    Admission waiting = d.admit("l", 0, o, kMs, wakes);
    assert_int_equal(static_cast<int>(waiting.outcome),
                     static_cast<int>(Admission::Outcome::Queued));

    d.applyConfiguration(*configOf({limitedLevel("l", 1, 4, 1, 10)}), 2 * kMs, wakes);
    assert_int_equal(d.stats("l").seatsInUse, 3);
    assert_int_equal(d.stats("l").nominalSeats, 1);

    d.release(seats[0], o, 3 * kMs, wakes);
    d.release(seats[1], o, 3 * kMs, wakes);
    bool gone = false;
    assert_false(d.poll(waiting.ticket, gone).has_value());
    d.release(seats[2], o, 3 * kMs, wakes);
    std::optional<Seat> s = d.poll(waiting.ticket, gone);
    assert_true(s.has_value());
    assert_int_equal(d.stats("l").seatsInUse, 1);

    // removed: no admission, the slot stays until its seat is released
    d.applyConfiguration(*configOf({limitedLevel("other", 1, 4, 1, 10)}), 4 * kMs, wakes);
    assert_int_equal(static_cast<int>(d.admit("l", 0, o, 4 * kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Unknown));
    assert_true(d.findLevel("l") >= 0);
    d.release(*s, o, 5 * kMs, wakes);
    assert_int_equal(d.findLevel("l"), -1);
}

// Borrowing: a level uses another's idle lendable seats up to its
// borrowing limit; the lender takes its seats back as borrowers release.
void levels_borrow_idle_lendable_seats(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    auto lender = limitedLevel("lender", 2, 4, 1, 10);
    lender->lendableSeats = 2;
    auto borrower = limitedLevel("borrower", 1, 4, 1, 10);
    borrower->borrowingSeats = 1;
    d.applyConfiguration(*configOf({lender, borrower}), kMs, wakes);
    int o = registerWorker(d, 100, 0);

    std::vector<Seat> b;
    b.push_back(d.admit("borrower", 0, o, kMs, wakes).seat);
    Admission borrowed = d.admit("borrower", 0, o, kMs, wakes);
    assert_int_equal(static_cast<int>(borrowed.outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    // the borrowing limit (1) is reached
    Admission third = d.admit("borrower", 0, o, kMs, wakes);
    assert_int_equal(static_cast<int>(third.outcome), static_cast<int>(Admission::Outcome::Queued));
    assert_int_equal(d.stats("borrower").seatsInUse, 2);

    // one of the lender's two seats is lent: it gets the other at once
    Admission l1 = d.admit("lender", 0, o, kMs, wakes);
    assert_int_equal(static_cast<int>(l1.outcome), static_cast<int>(Admission::Outcome::Execute));
    Admission l2 = d.admit("lender", 0, o, kMs, wakes);
    assert_int_equal(static_cast<int>(l2.outcome), static_cast<int>(Admission::Outcome::Queued));

    // the borrower releases its borrowed seat: the lender's request comes
    // first, the borrower's waiting one stays
    Wakes w;
    d.release(borrowed.seat, o, 2 * kMs, w);
    bool gone = false;
    assert_true(d.poll(l2.ticket, gone).has_value());
    assert_false(d.poll(third.ticket, gone).has_value());
    assert_int_equal(d.stats("lender").seatsInUse, 2);
    assert_int_equal(d.stats("borrower").seatsInUse, 1);
}

// A worker that died holds nothing: registering a worker sweeps the owners
// whose process is gone, their seats free and their waiters leave.
void dead_workers_are_swept(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("l", 1, 4, 1, 10)}), kMs, wakes);
    int dead = registerWorker(d, 100, 0);
    assert_int_equal(static_cast<int>(d.admit("l", 0, dead, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    d.admit("l", 0, dead, kMs, wakes);
    assert_int_equal(d.stats("l").waiting, 1);

    Wakes w;
    int fresh = d.registerOwner(
        300, 0, 2 * kMs, [](std::int32_t pid) { return pid != 100; }, w);
    assert_true(fresh >= 0);
    assert_int_equal(d.stats("l").seatsInUse, 0);
    assert_int_equal(d.stats("l").waiting, 0);
    assert_int_equal(static_cast<int>(d.admit("l", 0, fresh, 3 * kMs, w).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
}

// Each level's count of busy queues and their demand, which the virtual
// clock reads instead of visiting every queue, stay the sums over its
// queues through admissions, dispatches, releases, cancels, a shrunk
// configuration and a dead worker; the levels in use stay below levelEnd.
void queue_counts_follow_every_change(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*configOf({limitedLevel("a", 3, 16, 3, 4), limitedLevel("b", 2, 8, 2, 3)}),
                         kMs, wakes);
    int o1 = registerWorker(d, 100, 0);
    int o2 = registerWorker(d, 200, 1);

    auto check = [&] {
        for (int i = 0; i < kMaxLevels; i++) {
            const LevelSlot& l = z.state->level[i];
            if (l.used) {
                assert_true(i < z.state->levelEnd);
            }
            int active = 0;
            int demand = 0;
            for (int q = 0; q < kMaxQueuesPerLevel; q++) {
                const QueueSlot& qs = l.queue[q];
                demand += qs.seatsInUse + qs.waiting;
                active += (qs.seatsInUse > 0 || qs.waiting > 0) ? 1 : 0;
            }
            assert_int_equal(l.activeQueues, active);
            assert_int_equal(l.queueDemand, demand);
        }
    };

    std::vector<std::pair<Seat, int>> running;
    std::vector<std::pair<Ticket, int>> parked;
    std::uint64_t seed = 12345;
    auto next = [&](std::uint64_t n) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return (seed >> 33) % n;
    };
    std::int64_t now = kMs;
    for (int step = 0; step < 4000; step++) {
        now += kMs / 10;
        int owner = next(2) ? o1 : o2;
        switch (next(6)) {
            case 0:
            case 1: {
                Admission a = d.admit(next(2) ? "a" : "b", next(50), owner, now, wakes);
                if (a.outcome == Admission::Outcome::Execute) {
                    running.push_back({a.seat, owner});
                } else if (a.outcome == Admission::Outcome::Queued) {
                    parked.push_back({a.ticket, owner});
                }
                break;
            }
            case 2:
            case 3:
                if (!running.empty()) {
                    size_t i = next(running.size());
                    d.release(running[i].first, running[i].second, now, wakes);
                    running.erase(running.begin() + static_cast<long>(i));
                }
                break;
            case 4:
                if (!parked.empty()) {
                    size_t i = next(parked.size());
                    std::optional<Seat> seat = d.cancel(parked[i].first, next(2) == 0, now, wakes);
                    if (seat) {
                        running.push_back({*seat, parked[i].second});
                    }
                    parked.erase(parked.begin() + static_cast<long>(i));
                }
                break;
            default:
                // collect the dispatched
                for (size_t i = 0; i < parked.size();) {
                    bool gone = false;
                    std::optional<Seat> seat = d.poll(parked[i].first, gone);
                    if (seat) {
                        running.push_back({*seat, parked[i].second});
                    }
                    if (seat || gone) {
                        parked.erase(parked.begin() + static_cast<long>(i));
                    } else {
                        i++;
                    }
                }
        }
        if (step == 2000) {
            // fewer queues: the extra ones drain
            d.applyConfiguration(*configOf({limitedLevel("a", 2, 4, 2, 4)}), now, wakes);
        }
        check();
    }

    // the second worker dies holding seats and waiters
    Wakes w;
    d.registerOwner(
        300, 2, now, [](std::int32_t pid) { return pid != 200; }, w);
    check();
}

// Max-in-flight: read-only and mutating verbs have their own limit, no
// queue; a limit of 0 is none; watches and other long-running requests are
// not counted.
void max_in_flight_levels(void**) {
    Zone z;
    Dispatcher d(*z.state);
    Wakes wakes;
    d.applyConfiguration(*maxInFlightConfiguration(1, 0), kMs, wakes);
    int o = registerWorker(d, 100, 0);

    assert_int_equal(static_cast<int>(d.admit(kReadOnlyLevel, 0, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Execute));
    assert_int_equal(static_cast<int>(d.admit(kReadOnlyLevel, 0, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Rejected));
    assert_int_equal(static_cast<int>(d.admit(kMutatingLevel, 0, o, kMs, wakes).outcome),
                     static_cast<int>(Admission::Outcome::Exempt));

    assert_false(isMutatingVerb("get"));
    assert_false(isMutatingVerb("list"));
    assert_false(isMutatingVerb("watch"));
    assert_true(isMutatingVerb("create"));
    assert_true(isMutatingVerb("deletecollection"));
    assert_true(isMutatingVerb("patch"));

    kube::endpoints::RequestInfo watch =
        kube::endpoints::resolveRequestInfo("GET", "/api/v1/pods", "watch=true");
    kube::endpoints::RequestInfo list =
        kube::endpoints::resolveRequestInfo("GET", "/api/v1/pods", "");
    kube::endpoints::RequestInfo logs =
        kube::endpoints::resolveRequestInfo("GET", "/api/v1/namespaces/default/pods/p/log", "");
    assert_true(isLongRunning(watch));
    assert_false(isLongRunning(list));
    assert_true(isLongRunning(logs));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dealer_matches_kube),
        cmocka_unit_test(dealer_hands_are_distinct_cards),
        cmocka_unit_test(waiting_requests_take_the_shortest_queue_of_the_hand),
        cmocka_unit_test(fair_queuing_alternates_between_flows),
        cmocka_unit_test(two_workers_share_the_seats),
        cmocka_unit_test(concurrent_workers_never_exceed_the_seats),
        cmocka_unit_test(leases_keep_seats_between_requests),
        cmocka_unit_test(leases_give_way_to_waiting_requests),
        cmocka_unit_test(leases_close_only_where_waiting_requests_could_use_the_seats),
        cmocka_unit_test(concurrent_leases_never_strand_a_waiter),
        cmocka_unit_test(reject_exempt_queue_limit_and_timeout),
        cmocka_unit_test(new_configuration_keeps_seats_in_use),
        cmocka_unit_test(levels_borrow_idle_lendable_seats),
        cmocka_unit_test(dead_workers_are_swept),
        cmocka_unit_test(max_in_flight_levels),
        cmocka_unit_test(queue_counts_follow_every_change),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
