#include "flowcontrol/queue_set.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "flowcontrol/shuffle_sharding.hpp"

namespace kube::flowcontrol {

namespace {

constexpr std::uint32_t kMagic = 0x41504633;  // "APF3"

std::string_view nameOf(const LevelSlot& l) {
    return std::string_view(l.name, strnlen(l.name, sizeof(l.name)));
}

void copyName(char* dst, std::size_t size, std::string_view src) {
    std::size_t n = std::min(src.size(), size - 1);
    std::memcpy(dst, src.data(), n);
    std::memset(dst + n, 0, size - n);
}

bool limited(const LevelSlot& l) {
    return l.used && !l.exempt;
}

// Seats move between levels only from one that may lend to one that may
// borrow; two that may borrow compete for the same lent seats.
bool mayBorrow(const LevelSlot& l) {
    return limited(l) && l.borrowingSeats != 0;
}
bool mayLend(const LevelSlot& l) {
    return limited(l) && l.lendableSeats > 0;
}

// What takes and returns leases without the lock reads and writes through
// these; everything else is written under the lock.
template <typename T>
std::atomic_ref<T> shared(T& value) {
    return std::atomic_ref<T>(value);
}

void setBit(std::uint64_t& word, int bit) {
    std::uint64_t mask = std::uint64_t{1} << bit;
    if ((word & mask) == 0) {  // a line written only when it changes
        word |= mask;
    }
}

}  // namespace

void Dispatcher::initialize() {
    std::memset(&s_, 0, sizeof(s_));
    s_.magic = kMagic;
    for (int i = 0; i < kMaxWaiting; i++) {
        s_.waiting[i].next = (i + 1 < kMaxWaiting) ? i + 2 : 0;
    }
    s_.freeHead = 1;
}

bool Dispatcher::applyConfiguration(const Configuration& config, std::int64_t nowNs, Wakes& wakes) {
    bool complete = true;
    // leases taken from now on are checked against the new levels
    shared(s_.generation).fetch_add(1, std::memory_order_seq_cst);
    reclaimIdleLeases();

    for (LevelSlot& l : s_.level) {
        l.present = 0;
    }

    for (const auto& level : config.levels) {
        if (!level) {
            continue;
        }
        int i = findLevel(level->name);
        if (i < 0) {
            for (int j = 0; j < kMaxLevels; j++) {
                if (!s_.level[j].used) {
                    i = j;
                    break;
                }
            }
            if (i < 0) {
                complete = false;
                continue;
            }
            LevelSlot& fresh = s_.level[i];
            std::memset(&fresh, 0, sizeof(fresh));
            fresh.used = 1;
            s_.levelEnd = std::max(s_.levelEnd, i + 1);
            copyName(fresh.name, sizeof(fresh.name), level->name);
        }

        LevelSlot& l = s_.level[i];
        syncTime(l, nowNs);
        copyName(l.uid, sizeof(l.uid), level->uid);
        l.present = 1;
        l.exempt = level->exempt;
        l.reject = level->reject;
        l.nominalSeats = std::max(level->nominalSeats, 0);
        l.lendableSeats = std::clamp(level->lendableSeats, 0, l.nominalSeats);
        l.borrowingSeats = level->borrowingSeats < 0 ? -1 : level->borrowingSeats;
        l.queues =
            (l.exempt || l.reject) ? 0 : std::clamp(level->queuing.queues, 0, kMaxQueuesPerLevel);
        l.handSize =
            std::clamp(level->queuing.handSize, 1, std::max(1, std::min(l.queues, kMaxHandSize)));
        l.queueLengthLimit = std::max(level->queuing.queueLengthLimit, 0);
        l.queueSpan = std::max(l.queueSpan, l.queues);
    }

    for (int i = 0; i < kMaxLevels; i++) {
        freeLevelIfIdle(i);
    }

    refreshLeaseGates();  // which levels lend and borrow may have changed
    dispatchAsMuchAsPossible(nowNs, wakes);
    return complete;
}

int Dispatcher::addOwner(std::int32_t pid, std::int32_t workerSlot) {
    int free = -1;
    for (int i = 0; i < kMaxOwners; i++) {
        if (s_.owner[i].pid == pid) {
            s_.owner[i].workerSlot = workerSlot;
            return i;
        }
        if (free < 0 && s_.owner[i].pid == 0) {
            free = i;
        }
    }
    if (free >= 0) {
        std::memset(&s_.owner[free], 0, sizeof(s_.owner[free]));
        s_.owner[free].pid = pid;
        s_.owner[free].workerSlot = workerSlot;
    }
    return free;
}

void Dispatcher::dropOwner(int owner, std::int64_t nowNs, Wakes& wakes) {
    OwnerSlot& o = s_.owner[owner];

    for (int i = 0; i < kMaxWaiting; i++) {
        WaitingSlot& w = s_.waiting[i];
        if (w.state == static_cast<std::uint32_t>(WaitState::Free) || w.owner != owner) {
            continue;
        }
        if (w.state == static_cast<std::uint32_t>(WaitState::Waiting)) {
            unlinkWaiting(i);
        } else {
            // dispatched, never collected: its seat is among the held ones
            QueueSlot& q = s_.level[w.level].queue[w.queue];
            changeQueue(s_.level[w.level], q, -1, 0);
        }
        freeWaiting(i);
    }

    for (int i = 0; i < kMaxLevels; i++) {
        LevelSlot& l = s_.level[i];
        if (o.held[i] > 0 && l.used) {
            syncTime(l, nowNs);
            l.seatsInUse = std::max(l.seatsInUse - o.held[i], 0);
            if (l.seatsInUse == 0) {
                // which queues the dead requests held is not known
                for (int q = 0; q < l.queueSpan; q++) {
                    changeQueue(l, l.queue[q], -l.queue[q].seatsInUse, 0);
                }
            }
        }
        freeLevelIfIdle(i);
    }

    std::memset(&o, 0, sizeof(o));
    s_.leaseOwners[owner / 64] &= ~(std::uint64_t{1} << (owner % 64));
    dispatchAsMuchAsPossible(nowNs, wakes);
}

int Dispatcher::findLevel(std::string_view name) const {
    for (int i = 0; i < s_.levelEnd; i++) {
        if (s_.level[i].used && nameOf(s_.level[i]) == name) {
            return i;
        }
    }
    return -1;
}

LevelStats Dispatcher::stats(std::string_view level) const {
    LevelStats st;
    int i = findLevel(level);
    if (i >= 0) {
        const LevelSlot& l = s_.level[i];
        st.seatsInUse = l.seatsInUse;
        st.waiting = l.waiting;
        st.nominalSeats = l.nominalSeats;
        st.dispatched = l.dispatched;
        st.rejected = l.rejected;
        st.timedOut = l.timedOut;
    }
    return st;
}

// queueSet.syncTimeLocked: R advances at min(seats wanted, the level's
// seats) shared among the queues that are busy. Doubles keep R exact enough
// for years of seat-seconds, so kube's epoch advance is not needed.
void Dispatcher::syncTime(LevelSlot& l, std::int64_t nowNs) {
    if (l.lastRealNs == 0 || nowNs <= l.lastRealNs) {
        l.lastRealNs = std::max(l.lastRealNs, nowNs);
        return;
    }

    if (l.activeQueues > 0) {
        double seconds = static_cast<double>(nowNs - l.lastRealNs) / 1e9;
        double rate = static_cast<double>(std::min(l.queueDemand, std::max(l.nominalSeats, 1)));
        l.currentR += seconds * rate / l.activeQueues;
    }
    l.lastRealNs = nowNs;
}

// queueSet.shuffleShardLocked: the queue with the least waiting work in the
// flow's hand, visited from an offset that rotates with every enqueue.
int Dispatcher::chooseQueue(LevelSlot& l, std::uint64_t flowHash) {
    int hand[kMaxHandSize];
    int handSize = std::min(l.handSize, l.queues);
    dealIntoHand(flowHash, l.queues, handSize, hand);

    int offset = static_cast<int>(l.enqueues % static_cast<std::uint64_t>(handSize));
    l.enqueues++;

    int best = -1;
    int bestWaiting = 0;
    for (int i = 0; i < handSize; i++) {
        int q = hand[(offset + i) % handSize];
        if (best < 0 || l.queue[q].waiting < bestWaiting) {
            best = q;
            bestWaiting = l.queue[q].waiting;
        }
    }
    return best;
}

// Borrowing at dispatch time (apf_controller adjusts each level's limit
// every 10 s from its seat demand; here a level takes what is idle now):
// a level always has its nominal seats less its lendable ones; beyond that
// it uses its own lendable seats, or borrows others' idle lendable seats up
// to its borrowing limit, while the seats borrowed stay within the lendable
// seats idle (so all levels together never exceed the server's seats).
// An owner takes back a lent seat as soon as a borrower releases one: the
// dispatch loop serves levels within their nominal seats first.
bool Dispatcher::canTakeSeat(const LevelSlot& l, bool withinNominalOnly) const {
    int n = l.seatsInUse;
    int nominal = l.nominalSeats;

    if (withinNominalOnly && n >= nominal) {
        return false;
    }
    if (n < nominal - l.lendableSeats) {
        return true;
    }

    long borrowed = 0;
    long idleLendable = 0;
    for (int i = 0; i < s_.levelEnd; i++) {
        const LevelSlot& m = s_.level[i];
        if (!limited(m)) {
            continue;
        }
        borrowed += std::max(m.seatsInUse - m.nominalSeats, 0);
        idleLendable += std::min(m.lendableSeats, std::max(m.nominalSeats - m.seatsInUse, 0));
    }

    if (borrowed >= idleLendable) {
        return false;
    }
    if (n < nominal) {
        return true;
    }
    return l.present && (l.borrowingSeats < 0 || n - nominal < l.borrowingSeats);
}

void Dispatcher::takeSeat(int level, int queue, int owner) {
    LevelSlot& l = s_.level[level];
    l.seatsInUse++;
    l.dispatched++;
    if (queue >= 0) {
        changeQueue(l, l.queue[queue], 1, 0);
    }
    if (owner >= 0) {
        s_.owner[owner].held[level]++;
    }
}

Admission Dispatcher::admit(std::string_view level, std::uint64_t flowHash, int owner,
                            std::int64_t nowNs, Wakes& wakes) {
    Admission a;
    int i = findLevel(level);
    if (i < 0 || !s_.level[i].present) {
        return a;
    }

    LevelSlot& l = s_.level[i];
    if (l.exempt) {
        a.outcome = Admission::Outcome::Exempt;
        return a;
    }

    syncTime(l, nowNs);

    // seats kept idle by owners' leases are wanted now
    if (!canTakeSeat(l, false) && reclaimIdleLeases(-1, levelsSharingSeats(i)) > 0) {
        dispatchAsMuchAsPossible(nowNs, wakes);
    }

    // queueSet.StartRequest step 0: no queues, the seat limit alone
    if (l.queues == 0) {
        if (!canTakeSeat(l, false)) {
            l.rejected++;
            a.outcome = Admission::Outcome::Rejected;
            return a;
        }
        takeSeat(i, -1, owner);
        a.outcome = Admission::Outcome::Execute;
        a.seat = {i, -1, nowNs};
        return a;
    }

    int qi = chooseQueue(l, flowHash);
    QueueSlot& q = l.queue[qi];

    // rejectOrEnqueueToBoundLocked; and no room left in the shared table
    if ((!canTakeSeat(l, false) && q.waiting >= l.queueLengthLimit) || s_.freeHead == 0) {
        l.rejected++;
        a.outcome = Admission::Outcome::Rejected;
        return a;
    }

    if (q.waiting == 0 && q.seatsInUse == 0) {
        q.nextDispatchR = l.currentR;
    }

    // Nothing waits at this level, and a seat is free: what enqueuing and
    // dispatching would do, without the visit of every level and queue.
    // Every call ends with all that can be dispatched dispatched, so no
    // other level can take a seat now, and this request, alone in its
    // level's queues, would be the one dispatched.
    if (l.waiting == 0 && canTakeSeat(l, false)) {
        q.nextDispatchR = std::max(q.nextDispatchR, l.currentR);  // its arrival
        takeSeat(i, qi, owner);
        q.nextDispatchR += kEstimatedServiceSeconds;
        l.robinIndex = qi;
        shrinkQueueSpan(l);
        a.outcome = Admission::Outcome::Execute;
        a.seat = {i, qi, nowNs};
        return a;
    }

    int slot = s_.freeHead - 1;
    WaitingSlot& w = s_.waiting[slot];
    s_.freeHead = w.next;

    w.next = 0;
    w.level = i;
    w.queue = qi;
    w.owner = owner;
    w.state = static_cast<std::uint32_t>(WaitState::Waiting);
    w.serial = ++s_.serial;
    if (w.serial == 0) {
        w.serial = ++s_.serial;
    }
    w.startNs = 0;
    w.arrivalR = l.currentR;

    if (q.tail != 0) {
        s_.waiting[q.tail - 1].next = slot + 1;
    } else {
        q.head = slot + 1;
    }
    q.tail = slot + 1;
    changeQueue(l, q, 0, 1);
    changeWaiting(l, 1);
    boundNextDispatch(l, q);

    // a lease that went idle before this request was counted as waiting
    reclaimIdleLeases(-1, levelsSharingSeats(i));
    dispatchAsMuchAsPossible(nowNs, wakes);

    a.ticket = {slot, w.serial};
    if (w.state == static_cast<std::uint32_t>(WaitState::Dispatched)) {
        bool gone = false;
        a.seat = *poll(a.ticket, gone);
        a.outcome = Admission::Outcome::Execute;
        return a;
    }

    a.outcome = Admission::Outcome::Queued;
    return a;
}

std::optional<Seat> Dispatcher::poll(Ticket ticket, bool& gone) {
    gone = false;
    if (ticket.slot < 0 || ticket.slot >= kMaxWaiting) {
        gone = true;
        return std::nullopt;
    }

    WaitingSlot& w = s_.waiting[ticket.slot];
    if (w.serial != ticket.serial || w.state == static_cast<std::uint32_t>(WaitState::Free)) {
        gone = true;
        return std::nullopt;
    }
    if (w.state == static_cast<std::uint32_t>(WaitState::Waiting)) {
        return std::nullopt;
    }

    Seat seat{w.level, w.queue, w.startNs};
    freeWaiting(ticket.slot);
    return seat;
}

std::optional<Seat> Dispatcher::cancel(Ticket ticket, bool timedOut, std::int64_t nowNs,
                                       Wakes& wakes) {
    bool gone = false;
    std::optional<Seat> seat = poll(ticket, gone);
    if (seat || gone) {
        return seat;
    }

    WaitingSlot& w = s_.waiting[ticket.slot];
    int level = w.level;
    LevelSlot& l = s_.level[level];
    syncTime(l, nowNs);
    unlinkWaiting(ticket.slot);
    freeWaiting(ticket.slot);
    if (timedOut) {
        l.timedOut++;
    }
    l.rejected++;
    freeLevelIfIdle(level);
    // the head of the queue changed: its successor may be dispatchable
    dispatchAsMuchAsPossible(nowNs, wakes);
    return std::nullopt;
}

void Dispatcher::release(const Seat& seat, int owner, std::int64_t nowNs, Wakes& wakes) {
    if (seat.level < 0 || seat.level >= kMaxLevels) {
        return;
    }

    LevelSlot& l = s_.level[seat.level];
    syncTime(l, nowNs);
    l.seatsInUse = std::max(l.seatsInUse - 1, 0);
    if (owner >= 0) {
        OwnerSlot& o = s_.owner[owner];
        if (o.held[seat.level] > 0) {
            o.held[seat.level]--;
        }
        if (seat.leased && o.leased[seat.level] > 0 && --o.leased[seat.level] == 0 &&
            shared(o.idle[seat.level]).load() == 0) {
            o.leaseLevels &= ~(std::uint64_t{1} << seat.level);
        }
    }
    leaveQueue(l, seat, nowNs);

    freeLevelIfIdle(seat.level);
    dispatchAsMuchAsPossible(nowNs, wakes);
}

// finishRequestLocked: the seat leaves its queue, and the start of the
// queue's next request moves by what the request took beyond (or short of)
// its estimate.
void Dispatcher::leaveQueue(LevelSlot& l, const Seat& seat, std::int64_t nowNs) {
    if (seat.queue < 0 || seat.queue >= kMaxQueuesPerLevel) {
        return;
    }
    QueueSlot& q = l.queue[seat.queue];
    changeQueue(l, q, -1, 0);
    double actual = static_cast<double>(std::max<std::int64_t>(nowNs - seat.startNs, 0)) / 1e9;
    q.nextDispatchR -= kEstimatedServiceSeconds - actual;
    boundNextDispatch(l, q);
}

bool Dispatcher::keepAsLease(const Seat& seat, int owner, std::int64_t nowNs) {
    if (owner < 0 || owner >= kMaxOwners || seat.level < 0 || seat.level >= kMaxLevels) {
        return false;
    }
    LevelSlot& l = s_.level[seat.level];
    OwnerSlot& o = s_.owner[owner];
    std::atomic_ref<std::int32_t> idle = shared(o.idle[seat.level]);
    if (!limited(l) || !l.present || shared(l.leaseGate).load() != 0 ||
        l.seatsInUse >= l.nominalSeats || o.held[seat.level] <= 0 ||
        idle.load() >= kMaxIdleLeases || (seat.leased && o.leased[seat.level] <= 0)) {
        return false;
    }

    syncTime(l, nowNs);
    if (!seat.leased) {
        leaveQueue(l, seat, nowNs);
        o.leased[seat.level]++;
    }
    setBit(o.leaseLevels, seat.level);
    setBit(s_.leaseOwners[owner / 64], owner % 64);
    idle.fetch_add(1, std::memory_order_seq_cst);
    return true;
}

bool Dispatcher::takeLease(int level, int owner, std::uint64_t generation) {
    if (owner < 0 || owner >= kMaxOwners || level < 0 || level >= kMaxLevels ||
        shared(s_.generation).load(std::memory_order_acquire) != generation ||
        shared(s_.level[level].leaseGate).load(std::memory_order_relaxed) != 0) {
        return false;
    }
    std::atomic_ref<std::int32_t> idle = shared(s_.owner[owner].idle[level]);
    std::int32_t n = idle.load(std::memory_order_relaxed);
    while (n > 0) {
        if (idle.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel,
                                       std::memory_order_relaxed)) {
            return true;
        }
    }
    return false;
}

bool Dispatcher::returnLease(const Seat& seat, int owner) {
    if (!seat.leased || owner < 0 || owner >= kMaxOwners || seat.level < 0 ||
        seat.level >= kMaxLevels ||
        shared(s_.generation).load(std::memory_order_acquire) != seat.generation) {
        return false;
    }
    std::atomic_ref<std::int32_t> gate = shared(s_.level[seat.level].leaseGate);
    if (gate.load(std::memory_order_seq_cst) != 0) {
        return false;
    }
    // only the owner raises its count, so this bound holds
    std::atomic_ref<std::int32_t> idle = shared(s_.owner[owner].idle[seat.level]);
    if (idle.load(std::memory_order_relaxed) >= kMaxIdleLeases) {
        return false;
    }

    // Against a request that starts waiting meanwhile (leaseGate, then
    // reclaimIdleLeases, under the lock): each side writes its count, then
    // reads the other's, so one of them sees the other.
    idle.fetch_add(1, std::memory_order_seq_cst);
    if (gate.load(std::memory_order_seq_cst) == 0) {
        return true;
    }
    std::int32_t n = idle.load(std::memory_order_seq_cst);
    while (n > 0) {
        if (idle.compare_exchange_weak(n, n - 1, std::memory_order_seq_cst)) {
            return false;  // taken back: released under the lock
        }
    }
    return true;  // a reclaim took it to the level already
}

int Dispatcher::reclaimIdleLeases(int only, std::uint64_t onlyLevels) {
    int total = 0;
    for (int word = 0; word < kMaxOwners / 64; word++) {
        for (std::uint64_t bits = s_.leaseOwners[word]; bits != 0; bits &= bits - 1) {
            int owner = word * 64 + __builtin_ctzll(bits);
            if (only >= 0 && owner != only) {
                continue;
            }
            OwnerSlot& o = s_.owner[owner];
            for (std::uint64_t levels = o.leaseLevels & onlyLevels; levels != 0;
                 levels &= levels - 1) {
                int i = __builtin_ctzll(levels);
                std::int32_t n = shared(o.idle[i]).exchange(0, std::memory_order_seq_cst);
                if (n > 0) {
                    LevelSlot& l = s_.level[i];
                    l.seatsInUse = std::max(l.seatsInUse - n, 0);
                    o.held[i] = std::max(o.held[i] - n, 0);
                    o.leased[i] = std::max(o.leased[i] - n, 0);
                    total += n;
                }
                if (o.leased[i] == 0) {
                    o.leaseLevels &= ~(std::uint64_t{1} << i);
                }
                freeLevelIfIdle(i);
            }
            if (o.leaseLevels == 0) {
                s_.leaseOwners[word] &= ~(std::uint64_t{1} << (owner % 64));
            }
        }
    }
    return total;
}

std::uint64_t Dispatcher::generation() const {
    return shared(s_.generation).load(std::memory_order_acquire);
}

// Levels within their nominal seats first, then the borrowers; one request
// per level a round, so that borrowers share what is idle.
void Dispatcher::dispatchAsMuchAsPossible(std::int64_t nowNs, Wakes& wakes) {
    for (int pass = 0; pass < 2; pass++) {
        bool progress = true;
        while (progress) {
            progress = false;
            for (int i = 0; i < s_.levelEnd; i++) {
                LevelSlot& l = s_.level[i];
                if (!limited(l) || l.waiting == 0 || !canTakeSeat(l, pass == 0)) {
                    continue;
                }
                syncTime(l, nowNs);
                progress = dispatchOne(i, nowNs, wakes) || progress;
            }
        }
    }
}

// queueSet.dispatchLocked / findDispatchQueueToBoundLocked: the queue whose
// oldest request has the least virtual finish time, scanning round-robin
// from the queue after the last one served.
bool Dispatcher::dispatchOne(int level, std::int64_t nowNs, Wakes& wakes) {
    LevelSlot& l = s_.level[level];
    int span = l.queueSpan;
    if (span == 0) {
        return false;
    }

    int best = -1;
    double bestFinish = 0;
    int index = l.robinIndex;
    for (int n = 0; n < span; n++) {
        index = (index + 1) % span;
        const QueueSlot& q = l.queue[index];
        if (q.waiting == 0) {
            continue;
        }
        double finish = q.nextDispatchR + kEstimatedServiceSeconds;
        if (best < 0 || finish < bestFinish) {
            best = index;
            bestFinish = finish;
        }
    }
    if (best < 0) {
        return false;
    }

    QueueSlot& q = l.queue[best];
    int slot = q.head - 1;
    WaitingSlot& w = s_.waiting[slot];
    q.head = w.next;
    if (q.head == 0) {
        q.tail = 0;
    }
    w.next = 0;
    changeQueue(l, q, 0, -1);
    changeWaiting(l, -1);

    w.state = static_cast<std::uint32_t>(WaitState::Dispatched);
    w.startNs = nowNs;
    takeSeat(level, best, w.owner);
    q.nextDispatchR += kEstimatedServiceSeconds;
    l.robinIndex = best;
    boundNextDispatch(l, q);

    if (w.owner >= 0) {
        wakes.add(w.owner);
    }

    shrinkQueueSpan(l);
    return true;
}

// A shrunk configuration's extra queues go once drained.
void Dispatcher::shrinkQueueSpan(LevelSlot& l) {
    while (l.queueSpan > l.queues && l.queue[l.queueSpan - 1].waiting == 0 &&
           l.queue[l.queueSpan - 1].seatsInUse == 0) {
        l.queueSpan--;
    }
    if (l.robinIndex >= l.queueSpan) {
        l.robinIndex = 0;
    }
}

// Removes a waiting request from its queue (the queue's list is short:
// at most queueLengthLimit).
void Dispatcher::unlinkWaiting(int slot) {
    WaitingSlot& w = s_.waiting[slot];
    LevelSlot& l = s_.level[w.level];
    QueueSlot& q = l.queue[w.queue];

    int prev = 0;
    for (int cur = q.head; cur != 0; cur = s_.waiting[cur - 1].next) {
        if (cur == slot + 1) {
            if (prev == 0) {
                q.head = w.next;
            } else {
                s_.waiting[prev - 1].next = w.next;
            }
            if (q.tail == slot + 1) {
                q.tail = prev;
            }
            changeQueue(l, q, 0, -1);
            changeWaiting(l, -1);
            break;
        }
        prev = cur;
    }
    w.next = 0;
    boundNextDispatch(l, q);
}

void Dispatcher::freeWaiting(int slot) {
    WaitingSlot& w = s_.waiting[slot];
    std::uint32_t serial = w.serial;
    std::memset(&w, 0, sizeof(w));
    w.serial = serial;  // a stale ticket still mismatches once reused
    w.next = s_.freeHead;
    s_.freeHead = slot + 1;
}

// queueSet.boundNextDispatchLocked: dispatch in the virtual world does not
// precede the arrival of the queue's oldest request.
void Dispatcher::boundNextDispatch(LevelSlot& l, QueueSlot& q) {
    (void)l;
    if (q.head == 0) {
        return;
    }
    double arrival = s_.waiting[q.head - 1].arrivalR;
    if (q.nextDispatchR < arrival) {
        q.nextDispatchR = arrival;
    }
}

void Dispatcher::freeLevelIfIdle(int level) {
    LevelSlot& l = s_.level[level];
    if (l.used && !l.present && l.seatsInUse == 0 && l.waiting == 0) {
        std::memset(&l, 0, sizeof(l));
    }
    while (s_.levelEnd > 0 && !s_.level[s_.levelEnd - 1].used) {
        s_.levelEnd--;
    }
}

void Dispatcher::changeWaiting(LevelSlot& l, int delta) {
    l.waiting += delta;
    refreshLeaseGates();
}

// Each level's leaseGate: the requests waiting that its seats could serve.
// A gate is written only when it changes, so that the levels whose leases
// stay open keep their configuration's cache line unwritten.
void Dispatcher::refreshLeaseGates() {
    int borrowersWaiting = 0;
    int lendersWaiting = 0;
    for (int i = 0; i < s_.levelEnd; i++) {
        const LevelSlot& m = s_.level[i];
        borrowersWaiting += mayBorrow(m) ? m.waiting : 0;
        lendersWaiting += mayLend(m) ? m.waiting : 0;
    }
    for (int i = 0; i < s_.levelEnd; i++) {
        LevelSlot& m = s_.level[i];
        int gate = 0;
        if (limited(m)) {
            gate = m.waiting + (mayLend(m) || mayBorrow(m) ? borrowersWaiting : 0) +
                   (mayBorrow(m) ? lendersWaiting : 0);
        }
        std::atomic_ref<std::int32_t> g = shared(m.leaseGate);
        if (g.load(std::memory_order_relaxed) != gate) {
            g.store(gate, std::memory_order_seq_cst);
        }
    }
}

// The levels whose seats a request at `level` could use: its own, those it
// may borrow from, those it lends to, and the other borrowers.
std::uint64_t Dispatcher::levelsSharingSeats(int level) const {
    const LevelSlot& l = s_.level[level];
    std::uint64_t levels = std::uint64_t{1} << level;
    for (int i = 0; i < s_.levelEnd; i++) {
        const LevelSlot& m = s_.level[i];
        if ((mayBorrow(l) && (mayLend(m) || mayBorrow(m))) || (mayLend(l) && mayBorrow(m))) {
            levels |= std::uint64_t{1} << i;
        }
    }
    return levels;
}

// Every change of a queue's seats or waiting requests goes through here, so
// that its level knows its busy queues and their demand (syncTime).
void Dispatcher::changeQueue(LevelSlot& l, QueueSlot& q, int seats, int waiting) {
    bool wasActive = q.seatsInUse > 0 || q.waiting > 0;
    int newSeats = std::max(q.seatsInUse + seats, 0);
    l.queueDemand += newSeats - q.seatsInUse + waiting;
    q.seatsInUse = newSeats;
    q.waiting += waiting;
    bool active = q.seatsInUse > 0 || q.waiting > 0;
    l.activeQueues += static_cast<int>(active) - static_cast<int>(wasActive);
}

}  // namespace kube::flowcontrol
