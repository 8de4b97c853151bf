#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "flowcontrol/decision.hpp"

namespace kube::flowcontrol {

// The seats and queues of every priority level, shared by all the workers of
// a host: plain data at a fixed layout (no pointers, no std containers), so
// that it can live in an nginx shared-memory zone. Mirrors kube's
// fairqueuing/queueset (one queueSet per level) with the levels' borrowing
// (apf_controller's lendable and borrowing limits) done at dispatch time.
//
// Every Dispatcher call must be made under the lock that guards the state
// (the zone's mutex); each is a short critical section that never waits.
// Requests take one seat each (kube's work estimator is not modelled).

inline constexpr int kMaxLevels = 64;
inline constexpr int kMaxQueuesPerLevel = 512;  // kube's validation maximum
inline constexpr int kMaxWaiting = 4096;        // waiting requests, all levels
inline constexpr int kMaxOwners = 128;          // worker processes (reloads too)
inline constexpr int kLevelNameSize = 254;      // a name of up to 253 bytes
inline constexpr int kLevelUidSize = 64;

// kube's estimatedServiceDuration G: the work a request is assumed to take
// when it is dispatched, in seconds (corrected by its real duration later).
inline constexpr double kEstimatedServiceSeconds = 0.003;

struct QueueSlot {
    std::int32_t head;  // first waiting entry + 1 (0: empty)
    std::int32_t tail;  // last waiting entry + 1
    std::int32_t waiting;
    std::int32_t seatsInUse;
    double nextDispatchR;  // queue.nextDispatchR, seat-seconds
};

// Laid out for the workers' cores: what every admission and release writes
// is one cache line, what they read of the configuration another, so that
// a request moves as few lines between the cores as it can.
struct alignas(64) LevelSlot {
    // written by every admission and release
    std::int32_t seatsInUse;
    std::int32_t waiting;
    // kept as the queues change (Dispatcher::changeQueue), so that the
    // virtual clock advances without a visit of every queue:
    std::int32_t activeQueues;  // queues holding seats or waiting requests
    std::int32_t queueDemand;   // their seats in use plus their waiting
    std::int32_t queueSpan;     // queues that may hold requests (a shrunk
                                // configuration drains the ones past `queues`)
    std::int32_t robinIndex;    // queueSet.robinIndex
    std::uint64_t enqueues;     // rotates the visit of a hand
    double currentR;            // queueSet.currentR, seat-seconds
    std::int64_t lastRealNs;
    std::uint64_t dispatched;  // since the level's slot was taken (metrics)

    // the configuration, read by them
    alignas(64) std::uint8_t used;  // the slot holds a level
    std::uint8_t present;           // the level is in the current configuration
    std::uint8_t exempt;
    std::uint8_t reject;  // limitResponse Reject (no queues)
    std::int32_t nominalSeats;
    std::int32_t lendableSeats;
    std::int32_t borrowingSeats;  // -1: no limit
    std::int32_t queues;
    std::int32_t handSize;
    std::int32_t queueLengthLimit;
    // Requests waiting that this level's idle leases could seat: its own,
    // and those of levels it may lend to or borrow from (kept by
    // Dispatcher::refreshLeaseGates whenever requests start or stop
    // waiting). Its seats are leased only while this is 0.
    std::int32_t leaseGate;
    // since the level's slot was taken, for the metrics (rarely written)
    std::uint64_t rejected;
    std::uint64_t timedOut;

    char name[kLevelNameSize];
    char uid[kLevelUidSize];
    alignas(64) QueueSlot queue[kMaxQueuesPerLevel];
};
static_assert(offsetof(LevelSlot, used) == 64);

// A request waiting in a queue, or dispatched and not yet collected by the
// worker that parked it.
struct WaitingSlot {
    std::int32_t next;  // next in its queue, or in the free list (+1; 0: none)
    std::int32_t level;
    std::int32_t queue;
    std::int32_t owner;
    std::uint32_t state;  // WaitState
    std::uint32_t serial;
    std::int64_t startNs;  // when it was dispatched
    double arrivalR;
};

struct alignas(64) OwnerSlot {
    std::int32_t pid;               // 0: free
    std::int32_t workerSlot;        // ngx_worker, whose eventfd wakes it
    std::int32_t held[kMaxLevels];  // seats its requests and its leases hold
    // Leases (Dispatcher::keepAsLease): of the seats held, those kept
    // between requests, idle or taken again without the lock
    std::uint64_t leaseLevels;        // levels where leased > 0
    std::int32_t leased[kMaxLevels];  // idle or in use again
    // the idle ones: the owner takes and returns them without the lock
    // (atomically, on its own cache lines); others reclaim them under it
    alignas(64) std::int32_t idle[kMaxLevels];
};

// At most this many idle leased seats per owner and level: a worker runs
// one request at a time, a few when they wait on storage.
inline constexpr int kMaxIdleLeases = 1;

struct SharedState {
    std::uint32_t magic;
    std::uint32_t serial;
    std::int32_t freeHead;  // first free WaitingSlot + 1
    std::int32_t levelEnd;  // slots past this one are unused
    // read by every request that takes or returns a lease, written only
    // when a configuration is applied or an owner's leases change:
    alignas(64) std::uint64_t generation;        // configurations applied
    std::uint64_t leaseOwners[kMaxOwners / 64];  // owners with leases
    alignas(64) LevelSlot level[kMaxLevels];
    WaitingSlot waiting[kMaxWaiting];
    OwnerSlot owner[kMaxOwners];
};

static_assert(std::is_trivially_copyable_v<SharedState>);
static_assert(std::is_standard_layout_v<SharedState>);

enum class WaitState : std::uint32_t { Free = 0, Waiting, Dispatched };

// A dispatched request's seat, kept by its worker until it finishes.
struct Seat {
    std::int32_t level = -1;
    std::int32_t queue = -1;  // -1: dispatched without a queue
    std::int64_t startNs = 0;
    bool leased = false;           // one of its owner's leases
    std::uint64_t generation = 0;  // the configuration it was leased under
};

// A parked request, as its worker knows it.
struct Ticket {
    std::int32_t slot = -1;
    std::uint32_t serial = 0;
};

// The owners to wake because a request of theirs was dispatched.
struct Wakes {
    std::uint64_t mask[kMaxOwners / 64] = {};

    void add(int owner) { mask[owner / 64] |= std::uint64_t{1} << (owner % 64); }
    bool has(int owner) const { return (mask[owner / 64] >> (owner % 64)) & 1; }
};

struct Admission {
    enum class Outcome {
        Execute,  // a seat is taken: `seat`
        Exempt,   // an exempt level: no seat
        Queued,   // parked: `ticket`; wait for a wake-up, then poll()
        Rejected,
        Unknown,  // no such level in the state
    };
    Outcome outcome = Outcome::Unknown;
    Seat seat;
    Ticket ticket;
};

struct LevelStats {
    int seatsInUse = 0;
    int waiting = 0;
    int nominalSeats = 0;
    std::uint64_t dispatched = 0;
    std::uint64_t rejected = 0;
    std::uint64_t timedOut = 0;
};

// Operations on a SharedState; holds no state of its own.
class Dispatcher {
  public:
    explicit Dispatcher(SharedState& state) : s_(state) {}

    // Makes a zeroed state ready (once, when the zone is created).
    void initialize();

    // Takes the levels of `config`: a level already known by name keeps its
    // seats in use and its queues; levels no longer named are not admitted
    // to, drain, and free their slot once idle. Levels past kMaxLevels are
    // left out (returns false then).
    // Raised limits dispatch waiting requests at once (into `wakes`).
    bool applyConfiguration(const Configuration& config, std::int64_t nowNs, Wakes& wakes);

    // A worker process: its owner index, or -1 when the table is full.
    // Owners whose process is gone (isAlive(pid) false) are swept first:
    // their waiting requests are dropped and their seats freed.
    template <typename IsAlive>
    int registerOwner(std::int32_t pid, std::int32_t workerSlot, std::int64_t nowNs,
                      IsAlive isAlive, Wakes& wakes) {
        for (int i = 0; i < kMaxOwners; i++) {
            if (s_.owner[i].pid != 0 && s_.owner[i].pid != pid && !isAlive(s_.owner[i].pid)) {
                dropOwner(i, nowNs, wakes);
            }
        }
        return addOwner(pid, workerSlot);
    }
    void dropOwner(int owner, std::int64_t nowNs, Wakes& wakes);
    int ownerWorkerSlot(int owner) const { return s_.owner[owner].workerSlot; }

    // queueset.StartRequest for the level named `level`: a seat at once, a
    // place in the shortest queue of the flow's hand, or a refusal (a
    // Reject level without a free seat, a full queue, no free WaitingSlot).
    Admission admit(std::string_view level, std::uint64_t flowHash, int owner, std::int64_t nowNs,
                    Wakes& wakes);

    // A parked request: still waiting (nullopt), or dispatched: its seat,
    // now the caller's (the WaitingSlot is freed). `gone` is set when the
    // ticket is no longer known (its owner was swept).
    std::optional<Seat> poll(Ticket ticket, bool& gone);

    // The parked request gives up (its wait limit, the client went away):
    // removed from its queue, or, if it was dispatched meanwhile, its seat
    // is returned to the caller, which runs the request or releases it.
    // `timedOut` counts it as kube's time-out rejection, else as cancelled.
    std::optional<Seat> cancel(Ticket ticket, bool timedOut, std::int64_t nowNs, Wakes& wakes);

    // A request finished: its seat frees, and waiting requests of any level
    // are dispatched into the seats free now.
    void release(const Seat& seat, int owner, std::int64_t nowNs, Wakes& wakes);

    // Leases: the cost of a request is the lock and the shared cache lines
    // it writes, which every worker's requests pass through. While nothing
    // waits anywhere, a worker whose request ends may keep its seat, idle,
    // for its next request at that level (keepAsLease, under the lock),
    // and takes and returns it without the lock (takeLease, returnLease),
    // on cache lines of its own. The seat stays counted as in use at its
    // level and held by the owner, so the limits are exact. Idle leases go
    // back whenever a seat is wanted: a request its level cannot seat at
    // once, a request that starts waiting reclaim every owner's idle
    // leases at the levels whose seats it could use (its own, and those it
    // may borrow from or lend to); a new configuration reclaims them all.
    // A lease is kept only while its level has another seat free and no
    // request waits for its seats (LevelSlot::leaseGate), and bypasses the
    // queues: fair queuing orders requests when a level is saturated, and
    // then nothing is leased there. A level whose seats no waiting request
    // can use keeps its leases while others queue. Leased requests are not
    // counted in LevelStats::dispatched.

    // Under the lock: the finished request's seat becomes an idle lease of
    // `owner` (true), or the caller releases it (false).
    bool keepAsLease(const Seat& seat, int owner, std::int64_t nowNs);

    // Without the lock: one of `owner`'s idle leases at `level`, if the
    // configuration is still `generation` and nothing waits for its seats.
    bool takeLease(int level, int owner, std::uint64_t generation);

    // Without the lock: the leased seat of a finished request is idle
    // again (true); false when it must be released under the lock (a new
    // configuration, or requests wait for its seats now).
    bool returnLease(const Seat& seat, int owner);

    // Under the lock: every idle lease (or `owner`'s only) at the levels
    // in `levels` (bit i: level i) goes back to its level; returns how
    // many. The caller dispatches if it needs to.
    int reclaimIdleLeases(int owner = -1, std::uint64_t levels = ~std::uint64_t{0});

    std::uint64_t generation() const;

    int findLevel(std::string_view name) const;
    LevelStats stats(std::string_view level) const;

  private:
    int addOwner(std::int32_t pid, std::int32_t workerSlot);
    void syncTime(LevelSlot& l, std::int64_t nowNs);
    int chooseQueue(LevelSlot& l, std::uint64_t flowHash);
    bool canTakeSeat(const LevelSlot& l, bool withinNominal) const;
    void takeSeat(int level, int queue, int owner);
    void dispatchAsMuchAsPossible(std::int64_t nowNs, Wakes& wakes);
    bool dispatchOne(int level, std::int64_t nowNs, Wakes& wakes);
    void unlinkWaiting(int slot);
    void freeWaiting(int slot);
    void boundNextDispatch(LevelSlot& l, QueueSlot& q);
    void shrinkQueueSpan(LevelSlot& l);
    void freeLevelIfIdle(int level);
    static void changeQueue(LevelSlot& l, QueueSlot& q, int seats, int waiting);
    void changeWaiting(LevelSlot& l, int delta);
    void refreshLeaseGates();
    std::uint64_t levelsSharingSeats(int level) const;
    void leaveQueue(LevelSlot& l, const Seat& seat, std::int64_t nowNs);

    SharedState& s_;
};

}  // namespace kube::flowcontrol
