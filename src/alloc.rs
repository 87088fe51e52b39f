//! The process's allocator: mimalloc, in place of the system's.
//!
//! A run that updates an index decodes tens of thousands of rows (the names snapshot) on one
//! thread while another walks the tree; glibc grows that thread's arena a page at a time (one
//! `mprotect` each) and its small allocations cost more than mimalloc's. On django a body-only
//! edit took 157.6 ms p50 with glibc and 127.2 ms with mimalloc (README, profile steps).
//!
//! mimalloc keeps freed memory for a while before returning it, which raises the peak of a
//! full build (py-l: 265 MiB with glibc, 365 MiB with mimalloc's defaults); [`prefer_low_memory`]
//! makes it return memory at once, for runs that build a whole index and for the long-running
//! `ckg watch` and `ckg serve`. A full build then takes what it took with glibc within the
//! machine's noise (−2 % to +7 % on the corpora), with the same peak on the large corpora
//! (py-xl 470 / 471 MiB).
//!
//! mimalloc asks the kernel for transparent huge pages on its regions, and each touched
//! region then counts 2 MiB resident. That raised the small corpora's full-build peak (py-m
//! 65 MiB with glibc, 94 with huge pages, 70 with them turned off at run time) and the
//! service's (100k lines: 86 MiB with glibc, 216 with huge pages, 86 without; 1M lines 567 →
//! 105 MiB). So huge pages are off from the process's start ([`NO_HUGE_PAGES_AT_START`]), in
//! every command. An incremental run's median is faster with them (fewer page faults while
//! the snapshot is decoded: django edit p50 52–54 → 67–72 ms without them, 30 alternating
//! rounds), but its tail is not: each 2 MiB page is zeroed when first touched, which on a
//! virtual machine whose free memory goes back to the host (likely: a balloon's free page
//! reporting hands back free 2 MiB blocks) took up to 87 % of a run's samples, and the p95 of an
//! edit was 224–278 ms on django and 353–598 ms on the 1M-line repositories, against 78–124
//! ms without them (README, profile steps of 2026-12-04, evening).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's options, as numbered by `mi_option_e` in its `mimalloc.h` (v3).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// tree-sitter allocates through mimalloc too (its trees and parse stacks: glibc's `malloc`
/// and `free` were ~5 % of a full index's CPU), from a heap of its own. In a shared heap, the
/// parse reused blocks of the parser thread's pages that the writer had freed on the other
/// core (what it does not keep of each file's facts), so a reuse read a cache line the other
/// core last wrote (django: the parse's `mi_malloc` took 158 perf samples against
/// `parse-only`'s 30; with its own heap 52).
/// A full index's CPU: django 7.20 -> 6.92 s, effect 5.16 -> 4.79 s, salt 10.12 -> 9.20 s
/// (`benches/full_ab.py`); `parse-only` runs the same instructions. Called first, before any
/// parser exists: an allocation must be freed by the allocator that made it.
pub fn share_with_tree_sitter() {
    // SAFETY: before any other thread; a heap that is never deleted (blocks of a heap may be
    // freed from any thread, and each thread allocates from its own part of it).
    let heap = unsafe { libmimalloc_sys::mi_heap_new() };
    if heap.is_null() {
        return;
    }
    TREE_SITTER_HEAP.store(heap, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: no tree-sitter object exists yet; the four functions allocate from mimalloc
    // with the C signatures tree-sitter expects.
    unsafe {
        tree_sitter::set_allocator(Some(ts_malloc), Some(ts_calloc), Some(ts_realloc), Some(libmimalloc_sys::mi_free));
    }
}

/// tree-sitter's heap (see [`share_with_tree_sitter`]).
static TREE_SITTER_HEAP: std::sync::atomic::AtomicPtr<libmimalloc_sys::mi_heap_t> = std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

fn tree_sitter_heap() -> *mut libmimalloc_sys::mi_heap_t {
    TREE_SITTER_HEAP.load(std::sync::atomic::Ordering::Relaxed)
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut std::ffi::c_void {
    // SAFETY: the heap was made before tree-sitter was given this function.
    unsafe { libmimalloc_sys::mi_heap_malloc(tree_sitter_heap(), size) }
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut std::ffi::c_void {
    // SAFETY: as above.
    unsafe { libmimalloc_sys::mi_heap_calloc(tree_sitter_heap(), count, size) }
}

unsafe extern "C" fn ts_realloc(p: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void {
    // SAFETY: as above; `p` is null or came from one of these functions.
    unsafe { libmimalloc_sys::mi_heap_realloc(tree_sitter_heap(), p, size) }
}

/// Freed memory is kept until the process exits: for a short run that updates an index, which
/// would otherwise spend part of its time returning pages it is about to exit with. Huge pages
/// stay off (see the module's notes). Called before any thread starts.
pub fn prefer_speed() {
    // SAFETY: as in `prefer_low_memory`.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, -1);
    }
}

/// No transparent huge pages from the process's first allocation on: run before `main` (and
/// the Rust runtime's first allocation), as a constructor. mimalloc asks for huge pages on the
/// arena it reserves at its first allocation, and that arena's first pages were faulted in as
/// 2 MiB pages, each zeroed and, when the kernel found no free one, compacted for: a run
/// spent up to ~50 ms in those faults before it read a file (perf on pytest's full index:
/// 104 of 2,420 samples, all on the main thread in its first 50 ms), and one in five runs on a
/// one-file repository took 40-75 ms instead of 12-16 ms.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NO_HUGE_PAGES_AT_START: extern "C" fn() = no_huge_pages_at_start;

#[cfg(target_os = "linux")]
extern "C" fn no_huge_pages_at_start() {
    // SAFETY: a process-wide flag with integer arguments (`PR_SET_THP_DISABLE`, which the
    // kernel checks at each fault). Failure (an old kernel) leaves huge pages as they were.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// [`prefer_low_memory`], except that freed memory is kept for a second before it is returned
/// until [`return_freed_at_once`]: for a run that builds a whole index, whose parse allocates
/// and frees each file's tree and facts. Returned at once, that memory was faulted in again by
/// the next file, a page at a time (django: 356k page faults, 2.3 s of system time); kept, the
/// next file reuses it (155k faults, 1.0 s), and the peak, which comes later (resolution and
/// the index builds), is the same once [`return_freed_at_once`] has returned it (py-xl 436 MiB
/// either way). Called before any thread starts.
pub fn prefer_low_memory_after_parsing() {
    low_memory(1000);
}

/// Freed memory is returned to the system at once from now on, and what is kept is returned
/// now. Called when the parse has ended: its threads are gone or idle, and mimalloc reads the
/// option as one machine word.
pub fn return_freed_at_once() {
    // SAFETY: a plain setter of a global option (see above), then a collection of the
    // calling thread's heap and the shared arenas.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
        libmimalloc_sys::mi_collect(true);
    }
}

/// Freed memory is returned to the system at once and arenas are committed as they are used:
/// less speed on small runs, a lower peak on large ones. Called before any
/// thread starts (mimalloc's options are not thread-safe to set).
pub fn prefer_low_memory() {
    low_memory(0);
}

/// Low-memory options, with freed memory returned after `purge_delay_ms`.
fn low_memory(purge_delay_ms: std::ffi::c_long) {
    // SAFETY: plain setters of mimalloc's global options; no other thread runs yet.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, purge_delay_ms);
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
    }
}
