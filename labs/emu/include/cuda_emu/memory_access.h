// The memory-access hook. The rewriter wraps accesses in device code so that the runtime can
// watch them when a checker is on (EMU_RACECHECK=1), and costs one test of a flag when none is:
//
//     x = tile[ty][tx];        ->  x = ::cudaemu::shared_access(tile[ty][tx], ::cudaemu::Access::Read, CUDAEMU_SITE("tile"));
//     tile[ty][tx] = v;        ->  ::cudaemu::shared_store(tile[ty][tx], CUDAEMU_SITE("tile")) = v;
//     out[i] = v;              ->  ::cudaemu::global_written((out[i] = v), CUDAEMU_SITE("out"));
//     x = in[i];               ->  x = ::cudaemu::global_read(in[i], CUDAEMU_SITE("in"));
//     out[i] += v;             ->  ::cudaemu::global_updated((out[i] += v, ::cudaemu::UpdateEnd{}), CUDAEMU_SITE("out"));
//     x = pos[j].x;            ->  x = ::cudaemu::member_access(pos[j], CUDAEMU_MEMBER(.x), ::cudaemu::Access::Read, CUDAEMU_SITE("pos")).x;
//
// Each wrapper returns the very lvalue it was given (a store, once it has stored), so the
// expression keeps its type and meaning. Every watched access reaches the runtime through one function per memory space
// (observe_shared_access, observe_global_write) with its address, size, kind and source
// site: the race detector (src/engine/race_detector.cpp) is its first user, and the profiler
// (src/engine/profiler.h: global-memory sectors per warp request, shared-memory bank
// conflicts) its second; it also sees reads (observe_global_access), which the race detector
// does not use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace cudaemu {
// Update: read then written (+=, ++). Rewrite: a store of the value already there, which no
// other thread can tell from a read (the apsp lab's pivot row and column rely on it).
enum class Access : unsigned char { Read, Write, Update, Rewrite };

// Where an access is in the student's source (the #line the rewriter keeps) and what it names.
struct AccessSite {
    const char *file;
    int line;
    // The profile's slot for the site's open runs (profile_run_slot): a constant of the
    // rewriter's site (CUDAEMU_SITE numbers them with __COUNTER__, so a program that relies on
    // that macro's values, not only on their being distinct, sees them moved on), so that the
    // fast path finds its run at a fixed offset with no arithmetic on the site's address; 0 for
    // a site the runtime makes.
    unsigned char slot = 0;
    const char *name = nullptr;
};

// True while some checker watches accesses; the runtime sets it at each launch.
extern bool access_hooks_on;
// True while the profiler (EMU_PROFILE) counts atomics: the atomics of cuda_emu/atomics.h.
extern bool atomic_hooks_on;

void observe_shared_access(const void *address, std::size_t size, Access kind, const AccessSite *site);
// Any other access the profiler counts (a read, a wide store, an update): global memory, or
// shared memory through a pointer, or the thread's own stack (which the runtime ignores).
void observe_global_access(const void *address, std::size_t size, Access kind, const AccessSite *site);
void observe_atomic(const void *address, std::size_t size);
// How a stored value reads in a report.
enum class ValueKind : unsigned char { Signed, Unsigned, Floating, Other };
void observe_global_write(const void *address, std::size_t size, unsigned long long value_bits, ValueKind value_kind,
                          const AccessSite *site);

template <class Value>
constexpr ValueKind value_kind_of()
{
    return std::is_floating_point<Value>::value ? ValueKind::Floating
           : std::is_integral<Value>::value     ? (std::is_signed<Value>::value ? ValueKind::Signed : ValueKind::Unsigned)
                                                : ValueKind::Other;
}

// The site of a library call that accesses memory for its caller (wmma::load_matrix_sync, an
// asynchronous copy), from the caller's file and line (__builtin_FILE and __builtin_LINE as
// default arguments: the student's, through the rewriter's #line), made once and kept to the
// very end: the checkers keep pointers to sites and read them at exit (the profile's report),
// after function-local statics are destroyed.
inline const AccessSite *call_site(const char *file, int line, const char *name)
{
    static std::mutex *const mutex = new std::mutex;
    static auto *const sites = new std::map<std::pair<const char *, int>, AccessSite>;
    std::lock_guard<std::mutex> lock(*mutex);
    return &sites->emplace(std::make_pair(file, line), AccessSite{file, line, 0, name}).first->second;
}

// The running CUDA thread's fiber stack, set by the runtime at each fiber switch: an access to it
// is to the thread's own locals (registers on a GPU, an array parameter such as a register
// tile), which no checker watches, so the hooks skip it without a call.
extern __thread const char *fiber_stack_low;
extern __thread const char *fiber_stack_high;
inline bool on_fiber_stack(const void *address)
{
    const char *a = static_cast<const char *>(address);
    return a >= fiber_stack_low && a < fiber_stack_high;
}

// The profiler's fast path (src/engine/profiler.h). Under EMU_PROFILE (with no race detector),
// each CUDA thread keeps, per access site, an open *run*: accesses `stride` bytes apart. An
// access that continues its site's run only counts itself here, inline: no call, so the
// kernel's own loop keeps its registers (a call in the loop of the matmul lab's naive kernel
// cost more than the profile's bookkeeping). Anything else goes to the runtime.
struct ProfileRun {
    std::uintptr_t key = 0;   // profile_run_key(site, op); 0 where the slot is free
    std::uintptr_t next = 0;  // the address that continues the run: its first + stride * count
    std::intptr_t stride = 0; // 0 until a second access says otherwise
    std::uint32_t count = 0;  // accesses so far
    std::uint16_t size = 0;   // bytes an access
    unsigned char space = 0;  // the profiler's Space
    std::uintptr_t first() const { return next - std::uintptr_t(stride) * count; }
};
constexpr unsigned kProfileRunSlots = 32;  // open runs a thread keeps, one per site hashed
// Op: 0 load, 1 store, 2 atomic (the profiler's Op). A site's static is 8-byte aligned.
inline std::uintptr_t profile_run_key(const AccessSite *site, unsigned op)
{
    return reinterpret_cast<std::uintptr_t>(site) | (std::uintptr_t(op) << 1) | 1;
}
// A site's slot is its own (the rewriter's sites of one file take slots in turn); its store
// (op 1) and atomic (2) go 8 and 16 slots on from its load. The key, checked first, tells a
// site's run from another's that shares its slot. An atomic reaches the profile with no site
// (null), slot 0's.
inline unsigned profile_run_slot(const AccessSite *site, unsigned op)
{
    return ((site ? site->slot : 0u) + op * 8) & (kProfileRunSlots - 1);
}
// The running CUDA thread's open runs, kProfileRunSlots of them kProfileRunRow apart (a slot's
// row holds the runs of every thread a block may have, 1024, side by side: a constant, so that
// the fast path finds a slot with a shift). Unless the fast path is on, runs no access continues
// (every key 0), so that the fast path need not test for none.
constexpr std::size_t kProfileRunRow = 1024;
extern __thread ProfileRun *profile_runs;
// The running block's shared memory, for accesses through a volatile pointer and
// for the profile (set per block).
extern __thread const char *shared_arena_low;
extern __thread const char *shared_arena_high;
// A run the profiler has regrouped stays, emptied, in its slot (count 0): the next thread on
// this slot (the next block's, or the same thread after a barrier) mostly accesses the same site
// again, elsewhere (data[i] of the next block); the run starts over there, inline too, where the
// access is in the run's memory space (shared memory, or global memory off the thread's stack,
// as the runtime would place it). Not in the ASan build, whose fake stacks only the runtime knows.
inline bool profile_run_restarts(ProfileRun &run, std::uintptr_t address, std::size_t size)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)run, (void)address, (void)size;
    return false;
#else
    if (run.count != 0 || run.size != size) return false;
    const char *a = reinterpret_cast<const char *>(address);
    bool shared = a >= shared_arena_low && a < shared_arena_high;
    if (run.space != (shared ? 1 : 0) || (!shared && on_fiber_stack(a))) return false;
    run.next = address + std::uintptr_t(run.stride);  // the old stride, a guess the next access checks
    run.count = 1;
    return true;
#endif
}
inline bool profile_run_continues(const void *address, std::size_t size, const AccessSite *site, unsigned op)
{
    ProfileRun *runs = profile_runs;
    std::uintptr_t key = profile_run_key(site, op);
    ProfileRun &run = runs[profile_run_slot(site, op) * kProfileRunRow];
    if (run.key != key) return false;
    if (__builtin_expect(run.next != reinterpret_cast<std::uintptr_t>(address), 0))
        return profile_run_restarts(run, reinterpret_cast<std::uintptr_t>(address), size);
    run.next += run.stride;
    ++run.count;
    return true;
}

// The address as the runtime takes it, from any lvalue (volatile shared arrays included).
template <class T>
inline const void *address_of(T &ref)
{
    return const_cast<const void *>(static_cast<const volatile void *>(std::addressof(ref)));
}

// Warp-synchronous code: a warp's lanes exchange values through shared memory with no
// __syncwarp() between the store and the load (a block reduction's last steps, a warp's scan),
// relying on the lanes of a warp running in step, as they do on a GPU once the warp reconverges.
// Here a warp's lanes run one after another, so a lane would read what the lanes after it have
// not yet stored. What the running lane did to shared memory since it last waited decides: a
// lane that loads after it stored first lets the other lanes of its warp catch up
// (keep_warp_in_step), so every lane's stores of a step come before any lane's loads that
// follow them. Through a volatile lvalue (as such code must be written for nvcc not to keep
// the value in a register), the reverse too: a store after loads waits, so that a warp scan in
// place (`s[i] += s[i - d]`) reads before its neighbour adds; volatile only, because a
// reduction's `s[i] += s[i + d]` between barriers would otherwise wait at every step. A kernel
// that separates its stores and loads with __syncthreads() never waits here; nor does any
// under EMU_SCHEDULE=random or EMU_RACECHECK=1, which look for code that relies on such an
// order (CUDA promises none without __syncwarp()).
enum : unsigned char { kLaneLoadedShared = 1, kLaneStoredShared = 2 };
extern __thread unsigned char lane_shared_traffic;
// Parks the running lane until every other live lane of its warp waits (here, at a barrier, in
// a warp function) or has returned; forgets the lane's traffic.
void keep_warp_in_step();

template <class T>
inline bool in_shared_arena(T &ref)
{
    const char *a = static_cast<const char *>(address_of(ref));
    return a >= shared_arena_low && a < shared_arena_high;
}

template <class T>
inline void before_shared_load()
{
    // The flag is written only when it changes: a store on every access would chain each of a
    // loop's shared loads to the one before through memory (a tile's inner product ran 15%
    // slower so).
    const unsigned char traffic = lane_shared_traffic;
    if (__builtin_expect(traffic & kLaneStoredShared, 0)) {
        keep_warp_in_step();
        lane_shared_traffic |= kLaneLoadedShared;
    } else if (!(traffic & kLaneLoadedShared)) {
        lane_shared_traffic = traffic | kLaneLoadedShared;
    }
}
template <class T>
inline void before_shared_store()
{
    const unsigned char traffic = lane_shared_traffic;
    if (std::is_volatile<T>::value && __builtin_expect(traffic & kLaneLoadedShared, 0)) {
        keep_warp_in_step();
        lane_shared_traffic |= kLaneStoredShared;
    } else if (!(traffic & kLaneStoredShared)) {
        lane_shared_traffic = traffic | kLaneStoredShared;
    }
}
template <class T>
inline void before_shared_update()
{
    before_shared_load<T>();
    before_shared_store<T>();
}

// `site` is a lambda returning the site's static description, so that building it costs
// nothing unless a checker is on.
template <class T, class Site>
inline T &shared_access(T &ref, Access kind, Site site)
{
    if (kind == Access::Read)
        before_shared_load<T>();
    else  // an update (`tile[i] += v`) loads and stores
        before_shared_update<T>();
    if (__builtin_expect(access_hooks_on, 0) &&
        !(kind == Access::Read && profile_run_continues(address_of(ref), sizeof(T), site(), 0)))
        observe_shared_access(address_of(ref), sizeof(T), kind, site());
    return ref;
}

// `tile[i] = v`: the store is seen once made, with whether it changed the value.
template <class T, class Site>
struct SharedStore {
    T &ref;
    Site site;
    // Any right-hand side T's own assignment takes; the second form for `= {1, 2}`.
    template <class U>
    T &operator=(U &&value)
    {
        return store([&] { ref = static_cast<U &&>(value); });
    }
    T &operator=(const std::remove_cv_t<T> &value)
    {
        return store([&] { ref = value; });
    }

private:
    template <class Assign>
    T &store(Assign assign)
    {
        before_shared_store<T>();
        using Value = std::remove_cv_t<T>;
        if constexpr (std::is_trivially_copyable<Value>::value) {
            if (__builtin_expect(access_hooks_on, 0)) {
                if (profile_run_continues(address_of(ref), sizeof(T), site(), 1)) {
                    assign();
                    return ref;
                }
                Value before = ref;
                assign();
                Value after = ref;
                bool same = std::memcmp(&before, &after, sizeof(Value)) == 0;
                observe_shared_access(address_of(ref), sizeof(T), same ? Access::Rewrite : Access::Write, site());
                return ref;
            }
        }
        assign();
        return ref;
    }
};
template <class T, class Site>
inline SharedStore<T, Site> shared_store(T &ref, Site site)
{
    return SharedStore<T, Site>{ref, site};
}

// Called with the result of an assignment, once the value is stored. Only scalars up to 8
// bytes are watched (what a kernel stores with one instruction); anything else passes through.
template <class T, class Site>
inline T &&global_written(T &&result, Site site)
{
    using Value = std::remove_cv_t<std::remove_reference_t<T>>;
    // A store into shared memory through a volatile pointer, seen once made (too late to wait
    // before it): the lane's next load waits for its warp.
    if constexpr (std::is_lvalue_reference<T>::value && std::is_volatile<std::remove_reference_t<T>>::value) {
        if (in_shared_arena(result)) lane_shared_traffic |= kLaneStoredShared;
    }
    if constexpr (std::is_lvalue_reference<T>::value && std::is_trivially_copyable<Value>::value &&
                  sizeof(Value) <= sizeof(unsigned long long)) {
        // A run continued is no access to the stack: none is begun there.
        if (__builtin_expect(access_hooks_on, 0) && !profile_run_continues(address_of(result), sizeof(Value), site(), 1) &&
            !on_fiber_stack(address_of(result))) {
            Value value = result;
            unsigned long long bits = 0;
            std::memcpy(&bits, &value, sizeof(Value));
            observe_global_write(address_of(result), sizeof(Value), bits, value_kind_of<Value>(), site());
        }
    } else if constexpr (std::is_lvalue_reference<T>::value) {
        // A wider store (a float4): the profiler counts it; the race detector compares scalars only.
        if (__builtin_expect(access_hooks_on, 0) && !on_fiber_stack(address_of(result)))
            observe_global_access(address_of(result), sizeof(Value), Access::Write, site());
    }
    return static_cast<T &&>(result);
}

// Whether an lvalue the rewriter wrapped is a memory access at all: an array (`pieces[g]` of
// `int (*pieces)[64][64]`, a row `m[i]` of a 2-D parameter) only decays to a pointer where it
// is used, and reads nothing; counting it would count a whole array as one load.
template <class T>
constexpr bool accessed_by_use()
{
    return std::is_lvalue_reference<T>::value && !std::is_array<std::remove_reference_t<T>>::value;
}

// `x = in[i]`: the lvalue, unchanged (an rvalue, from a class's operator[], passes through).
// constexpr, so that `constexpr int w = weights[2];` still compiles: nothing is watched then.
template <class T, class Site>
constexpr T &&global_read(T &&ref, Site site)
{
    if constexpr (accessed_by_use<T>() && std::is_volatile<std::remove_reference_t<T>>::value) {
        if (!__builtin_is_constant_evaluated() && in_shared_arena(ref))
            before_shared_load<std::remove_reference_t<T>>();  // warp-synchronous code's volatile pointer
    }
    if constexpr (accessed_by_use<T>()) {
        if (!__builtin_is_constant_evaluated() && __builtin_expect(access_hooks_on, 0) &&
            !profile_run_continues(address_of(ref), sizeof(std::remove_reference_t<T>), site(), 0) &&
            !on_fiber_stack(address_of(ref)))
            observe_global_access(address_of(ref), sizeof(std::remove_reference_t<T>), Access::Read, site());
    }
    return static_cast<T &&>(ref);
}

// `x[i]++`, `--x[i]`: a read and a write, seen before they happen (the profiler's business only).
template <class T, class Site>
inline T &&global_access(T &&ref, Access kind, Site site)
{
    if constexpr (accessed_by_use<T>() && std::is_volatile<std::remove_reference_t<T>>::value) {
        if (in_shared_arena(ref)) before_shared_update<std::remove_reference_t<T>>();
    }
    if constexpr (accessed_by_use<T>()) {
        if (__builtin_expect(access_hooks_on, 0) && !on_fiber_stack(address_of(ref)))
            observe_global_access(address_of(ref), sizeof(std::remove_reference_t<T>), kind, site());
    }
    return static_cast<T &&>(ref);
}

// `pos[j].x`, `acc[i].x = v`, `tile[k].w += m`: an access to a member of an array element, seen
// before it happens, by the profiler only (the race detector compares whole elements it was
// given, and a member store's value would need the store wrapped, which a bit-field forbids).
// The rewriter passes the member as CUDAEMU_MEMBER(.x), a generic lambda giving its address,
// which a bit-field has not: for one, the lambda cannot be called, and the access is not seen.
// The element comes back unchanged, so `.x` applies to it as it did.
template <class T, class MemberAddress, class Site>
constexpr T &&member_access(T &&element, MemberAddress member_address, Access kind, Site site)
{
    if constexpr (accessed_by_use<T>() && std::is_invocable<MemberAddress &, T &>::value) {
        using Member = std::remove_pointer_t<std::invoke_result_t<MemberAddress &, T &>>;
        // A member array (`a[i].v` passed on) decays to a pointer where it is used: no load.
        if constexpr (!std::is_array<Member>::value) {
            if (!__builtin_is_constant_evaluated() && __builtin_expect(access_hooks_on, 0)) {
                const char *address = static_cast<const char *>(address_of(*member_address(element)));
                const char *first = static_cast<const char *>(address_of(element));
                // Outside the element: a static member (a fragment's num_elements), not memory read.
                bool inside = address >= first && address < first + sizeof(std::remove_reference_t<T>);
                if (inside && !on_fiber_stack(address)) observe_global_access(address, sizeof(Member), kind, site());
            }
        }
    }
    return static_cast<T &&>(element);
}

// `(out[i] += v, UpdateEnd{})` is the update's own result, through this comma operator; where
// the operator returns void (helper_math.h's float3 +=), the built-in comma gives UpdateEnd
// and global_updated has nothing to watch.
struct UpdateEnd {
};
template <class T>
inline T &&operator,(T &&result, UpdateEnd)
{
    return static_cast<T &&>(result);
}
template <class Site>
inline void global_updated(UpdateEnd, Site)
{
}

// `out[i] += v`: the read the update made, then the store, as global_written sees it.
template <class T, class Site>
inline T &&global_updated(T &&result, Site site)
{
    if constexpr (std::is_lvalue_reference<T>::value && std::is_volatile<std::remove_reference_t<T>>::value) {
        if (in_shared_arena(result)) lane_shared_traffic |= kLaneLoadedShared;
    }
    if constexpr (std::is_lvalue_reference<T>::value) {
        if (__builtin_expect(access_hooks_on, 0) && !on_fiber_stack(address_of(result)))
            observe_global_access(address_of(result), sizeof(std::remove_reference_t<T>), Access::Read, site());
    }
    return global_written(static_cast<T &&>(result), site);
}
}  // namespace cudaemu

// The site of an access, written by the rewriter on the access's own line, so __FILE__ and
// __LINE__ name the student's file and line.
// The address of a member (`.x`, `.pos.y`) of an element, for member_access; the trailing return
// type makes a bit-field's address a substitution failure, not an error.
#define CUDAEMU_MEMBER(member) \
    [](auto &cudaemu_element) -> decltype(::std::addressof(cudaemu_element member)) { \
        return ::std::addressof(cudaemu_element member); \
    }

#define CUDAEMU_SITE(name) \
    [] { \
        static const ::cudaemu::AccessSite cudaemu_site{__FILE__, __LINE__, \
                                                        (unsigned char)(__COUNTER__ % ::cudaemu::kProfileRunSlots), name}; \
        return &cudaemu_site; \
    }
