// HybridLog: one growing logical address space of variable-length records, held in a circular buffer of
// native-memory pages, flushed to a device and evicted as the tail moves on.
//
//   BeginAddress <= HeadAddress <= SafeReadOnlyAddress <= ReadOnlyAddress <= TailAddress
//   [on disk only ][ in memory, immutable (read-only region)  ][ in memory, mutable      ]
//
// Invariants:
//  - Page p lives in frame p % BufferPages while p is in [HeadAddress page, tail page]. A frame is reused only
//    after ClosedUntilAddress has passed its previous page, which happens only after that page was flushed
//    (FlushedUntilAddress) and every thread has left the epoch in which it could still read it (SafeHead).
//  - Records at or above ReadOnlyAddress may be updated in place. A page is flushed only once it is below
//    SafeReadOnlyAddress, i.e. after every thread that could have started an in-place update on it has moved on.
//  - Tail allocation is one atomic add on (page << 32 | offset); the thread whose add first overflows a page turns
//    it (or puts the tail back when the next frame is not free yet). Others get 0 (retry after Refresh).
//  - Bytes of a page after its last record are zero: a record header of 0 ends the page for scans.
//  - Address 0 is never a record (the first page starts at FirstValidAddress).
//  - A page wholly below BeginAddress is never read again: its flush is skipped (it counts as flushed at once, and a
//    failed write of it counts as done), and its frame is given back when the page closes, not kept for reuse.
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Garnet.storage.Devices;
using Garnet.storage.Epochs;

namespace Garnet.storage.Log;

public sealed unsafe class HybridLog : IDisposable
{
    public const long FirstValidAddress = 64;

    private readonly EpochProtection _epoch;
    private readonly IStorageDevice _device;
    private readonly byte*[] _frames;
    private readonly long[] _framePage;          // which page a frame holds (-1 none), for assertions and reads
    private readonly double _mutableFraction;
    private int _allocatedFrames;
    private long _tailPageOffset;                // (page << 32) | offset within page
    private long _readOnlyAddress, _safeReadOnlyAddress, _headAddress, _safeHeadAddress;
    private long _flushedUntilAddress, _closedUntilAddress, _beginAddress;
    private long _flushRequestedUntil;           // pages below this have had their flush issued
    private readonly object _flushLock = new();
    private readonly SortedSet<long> _flushedPages = new(); // completed flushes above FlushedUntilAddress
    private long _pendingFlushes;
    private Exception? _flushError;
    private bool _disposed;

    public HybridLog(HybridLogSettings settings, EpochProtection epoch, IStorageDevice device)
    {
        settings.Validate();
        PageBits = settings.PageBits;
        PageSize = 1 << PageBits;
        BufferPages = settings.MemoryPages;
        _frameMask = BitOperations.IsPow2(BufferPages) ? BufferPages - 1 : -1;
        _frameModMultiplier = ulong.MaxValue / (ulong)BufferPages + 1;
        _mutableFraction = settings.MutableFraction;
        _epoch = epoch;
        _device = device;
        _frames = new byte*[BufferPages];
        _framePage = Enumerable.Repeat(-1L, BufferPages).ToArray();
        _tailPageOffset = FirstValidAddress;
        _readOnlyAddress = _safeReadOnlyAddress = _headAddress = _safeHeadAddress = FirstValidAddress;
        _flushedUntilAddress = _closedUntilAddress = _beginAddress = _flushRequestedUntil = FirstValidAddress;
        AllocateFrame(0);
    }

    public int PageBits { get; }
    public int PageSize { get; }
    public int BufferPages { get; }
    /// <summary>Largest record the log can hold (a record never spans pages).</summary>
    public int MaxRecordSize => PageSize - (int)FirstValidAddress;
    public IStorageDevice Device => _device;

    public long TailAddress
    {
        get
        {
            long po = Volatile.Read(ref _tailPageOffset);
            long page = po >> 32, offset = Math.Min(po & 0xFFFFFFFF, PageSize);
            return (page << PageBits) + offset;
        }
    }

    public long ReadOnlyAddress => Volatile.Read(ref _readOnlyAddress);
    public long SafeReadOnlyAddress => Volatile.Read(ref _safeReadOnlyAddress);
    public long HeadAddress => Volatile.Read(ref _headAddress);
    public long SafeHeadAddress => Volatile.Read(ref _safeHeadAddress);
    public long FlushedUntilAddress => Volatile.Read(ref _flushedUntilAddress);
    public long ClosedUntilAddress => Volatile.Read(ref _closedUntilAddress);
    public long BeginAddress => Volatile.Read(ref _beginAddress);

    /// <summary>Native memory of the page frames allocated now.</summary>
    public long MemoryBytes => (long)Volatile.Read(ref _allocatedFrames) * PageSize;

    /// <summary>
    /// Memory the log must leave to others (the index, the object heap) out of MemoryBudget; null: the log may use
    /// all of its frames.
    /// </summary>
    public Func<long>? OtherMemoryBytes { get; set; }

    /// <summary>Bytes that the log pages and OtherMemoryBytes together may take (default: all frames).</summary>
    public long MemoryBudget { get; set; }

    /// <summary>Pages that may be in memory now: what the budget leaves after the other users, at least 2.</summary>
    public int AllowedPages
    {
        get
        {
            if (OtherMemoryBytes is null || MemoryBudget <= 0) return BufferPages;
            long free = MemoryBudget - OtherMemoryBytes();
            return (int)Math.Clamp(free >> PageBits, 2, BufferPages);
        }
    }

    private int MutablePagesOf(int allowed) => Math.Clamp((int)(allowed * _mutableFraction), 1, allowed - 1);

    public long PageOf(long address) => address >> PageBits;
    /// <summary>The frame that holds address's page while it is in memory.</summary>
    public int FrameOf(long address) => FrameOfPage(address >> PageBits);

    // page % BufferPages without a 64-bit division on the read path (an idiv was 2-6% of a pipelined GET's CPU): a mask
    // when BufferPages is a power of two (the defaults), else Lemire's fastmod for pages below 2^32, else the division.
    private readonly long _frameMask;
    private readonly ulong _frameModMultiplier;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int FrameOfPage(long page)
    {
        if (_frameMask >= 0) return (int)(page & _frameMask);
        if ((ulong)page <= uint.MaxValue) return (int)Math.BigMul(_frameModMultiplier * (ulong)page, (ulong)BufferPages, out _);
        return (int)(page % BufferPages);
    }
    public long PageStart(long page) => page << PageBits;

    /// <summary>Pointer to the record at address; the address must be in memory (>= HeadAddress, caller epoch-protected).</summary>
    public byte* GetPhysical(long address)
    {
        return _frames[FrameOfPage(address >> PageBits)] + (address & (PageSize - 1));
    }

    /// <summary>
    /// Allocates size bytes (8-aligned, at most a page minus the first-page reserve) at the tail. Returns the address,
    /// or 0 when the next page is not free yet: the caller must Refresh its epoch and try again.
    /// </summary>
    public long TryAllocate(int size)
    {
        if ((uint)size > (uint)MaxRecordSize) throw new ArgumentOutOfRangeException(nameof(size), $"a record of {size} bytes does not fit a {PageSize}-byte page");
        long local = Interlocked.Add(ref _tailPageOffset, size);
        long page = local >> 32;
        long offset = local & 0xFFFFFFFF;
        if (offset <= PageSize) return (page << PageBits) + offset - size;
        if (offset - size > PageSize) return 0; // another thread is turning this page

        // We turn the page. The rest of this page stays zero (ends the page for scans).
        long next = page + 1;
        if (!TryMakeFrameAvailable(next))
        {
            // With the device failing, pages cannot leave memory: fail the allocation instead of letting writers wait.
            if (_flushError is { } failure)
            {
                Interlocked.Exchange(ref _tailPageOffset, (page << 32) | (uint)PageSize);
                throw new LogDeviceException(failure);
            }
            // Close the page (its remainder stays zero) rather than rewinding into it: the read-only mark may already
            // have passed it, and a record written there now could miss its flush.
            Interlocked.Exchange(ref _tailPageOffset, (page << 32) | (uint)PageSize);
            return 0;
        }
        // Others may have grown since pages were last closed (an index's overflow chunk): idle frames over the allowance
        // go back now, not at the next close (a no-op read when within it).
        TrimIdleFrames(ClosedUntilAddress);
        AllocateFrame(next);
        Interlocked.Exchange(ref _tailPageOffset, (next << 32) | (uint)size);
        return next << PageBits;
    }

    private readonly object _frameLock = new(); // frames are allocated (page turn) and freed (closing, trimming) under it

    private void AllocateFrame(long page)
    {
        int frame = FrameOfPage(page);
        lock (_frameLock)
        {
            if (_frames[frame] == null)
            {
                _frames[frame] = PageMemory.Allocate(PageSize); // zeroed
                Interlocked.Increment(ref _allocatedFrames);
            }
            else NativeMemory.Clear(_frames[frame], (nuint)PageSize);
            Volatile.Write(ref _framePage[frame], page);
        }
    }

    /// <summary>Moves the read-only and head marks so that page's frame can be used; true when it is free now.</summary>
    private bool TryMakeFrameAvailable(long page)
    {
        // Keep a fraction of the allowed pages mutable below the new tail page; the rest of memory is read-only.
        // The page `allowed` pages back must be closed (that also frees this page's frame, allowed <= BufferPages).
        int allowed = AllowedPages;
        ShiftReadOnly(PageStart(Math.Max(0, page - MutablePagesOf(allowed) + 1)));
        if (page < allowed) return true;
        long needClosed = PageStart(page - allowed + 1);
        if (ClosedUntilAddress >= needClosed) return true;
        ShiftHead(needClosed);
        return ClosedUntilAddress >= needClosed;
    }

    private static bool MonotonicUpdate(ref long field, long value, out long old)
    {
        old = Volatile.Read(ref field);
        while (old < value)
        {
            long seen = Interlocked.CompareExchange(ref field, value, old);
            if (seen == old) return true;
            old = seen;
        }
        return false;
    }

    /// <summary>Makes records below address read-only; once every thread has moved on, their pages are flushed.</summary>
    public void ShiftReadOnly(long address)
    {
        address = Math.Min(address, TailAddress);
        if (MonotonicUpdate(ref _readOnlyAddress, address, out _))
            _epoch.BumpCurrentEpoch(() => OnSafeReadOnly(address));
    }

    private void OnSafeReadOnly(long address)
    {
        if (!MonotonicUpdate(ref _safeReadOnlyAddress, address, out _)) return;
        // Flush every whole page below the safe read-only address that is not flushed yet.
        long fromPage, toPage;
        lock (_flushLock)
        {
            fromPage = PageOf(_flushRequestedUntil);
            toPage = PageOf(address); // pages strictly below are complete
            if (toPage <= fromPage) return;
            _flushRequestedUntil = PageStart(toPage);
        }
        for (long p = fromPage; p < toPage; p++) FlushPage(p);
    }

    private void FlushPage(long page)
    {
        if (IsDropped(page))
        {
            // Nothing reads it again (KVStore.Clear moved the begin past it): no write, and it may leave memory at once.
            OnFlushSucceeded(page);
            OnPageFlushed(page);
            return;
        }
        Interlocked.Increment(ref _pendingFlushes);
        byte* frame = _frames[FrameOfPage(page)];
        var memory = new UnmanagedMemory(frame, PageSize).Memory;
        LogIo.Flush(_device, PageStart(page), memory, PageFlushing is { } hook ? () => hook(page) : null, error =>
        {
            // A page that failed to reach the device is not flushed: it stays in memory (never evicted) and its write is
            // retried until it succeeds (e.g. once disk space is back). Meanwhile DeviceFailing is true.
            if (error is not null && !IsDropped(page)) OnFlushFailed(page, error); // a dropped page's segment may be gone
            else
            {
                OnFlushSucceeded(page);
                OnPageFlushed(page);
            }
            Interlocked.Decrement(ref _pendingFlushes);
        });
    }

    /// <summary>True when page lies wholly below BeginAddress (its records are unreachable).</summary>
    private bool IsDropped(long page) => PageStart(page + 1) <= BeginAddress;

    private readonly HashSet<long> _failedPages = new();

    /// <summary>Delay before a failed page write is tried again.</summary>
    public TimeSpan FlushRetryDelay { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>True while some page could not be written to the device (disk full, I/O error): pages cannot leave memory,
    /// so writers should be refused; reads go on. Clears by itself once every failed page has been written.</summary>
    public bool DeviceFailing => Volatile.Read(ref _flushError) is not null;

    /// <summary>Raised with the error when the device starts failing, and with null when every failed page has been written.</summary>
    public Action<Exception?>? DeviceStateChanged { get; set; }

    private void OnFlushFailed(long page, Exception error)
    {
        bool first;
        lock (_failedPages)
        {
            first = _failedPages.Count == 0;
            _failedPages.Add(page);
            Volatile.Write(ref _flushError, error);
        }
        if (first) DeviceStateChanged?.Invoke(error);
        if (_disposed) return;
        Interlocked.Increment(ref _pendingFlushes);
        LogIo.After(FlushRetryDelay, () =>
        {
            Interlocked.Decrement(ref _pendingFlushes);
            if (!_disposed) FlushPage(page);
        });
    }

    private void OnFlushSucceeded(long page)
    {
        bool recovered;
        lock (_failedPages)
        {
            if (!_failedPages.Remove(page) || _failedPages.Count > 0) return;
            recovered = true;
            Volatile.Write(ref _flushError, null);
        }
        if (recovered) DeviceStateChanged?.Invoke(null);
    }

    /// <summary>
    /// Runs (on a pool thread) before a page is written: the page is immutable and stays in memory until the write
    /// completes. The object store serializes the page's objects here. A failure fails the page's flush.
    /// </summary>
    public Func<long, ValueTask>? PageFlushing { get; set; }

    private void OnPageFlushed(long page)
    {
        lock (_flushLock)
        {
            _flushedPages.Add(page);
            long until = Volatile.Read(ref _flushedUntilAddress);
            while (_flushedPages.Count > 0 && _flushedPages.Min == PageOf(until))
            {
                long p = _flushedPages.Min;
                _flushedPages.Remove(p);
                until = PageStart(p + 1);
            }
            Volatile.Write(ref _flushedUntilAddress, until);
        }
        // A waiting page turn may now be able to evict.
        ShiftHead(Volatile.Read(ref _headTarget));
    }

    private long _headTarget = FirstValidAddress;

    /// <summary>Evicts pages below address (never past what is flushed); frames are reused once every thread moved on.</summary>
    public void ShiftHead(long address)
    {
        MonotonicUpdate(ref _headTarget, address, out _);
        long target = Math.Min(Volatile.Read(ref _headTarget), FlushedUntilAddress);
        target = Math.Min(target, SafeReadOnlyAddress);
        if (MonotonicUpdate(ref _headAddress, target, out _))
            _epoch.BumpCurrentEpoch(() => OnSafeHead(target));
    }

    /// <summary>
    /// Called with [from, to) when pages are about to be closed (every thread has moved past the head shift, frames
    /// not yet reused): the null device uses it to count evicted keys out.
    /// </summary>
    public Action<long, long>? PagesClosing { get; set; }

    private readonly object _closeLock = new();

    private void OnSafeHead(long address)
    {
        MonotonicUpdate(ref _safeHeadAddress, address, out _);
        // Epoch actions can run at once on several threads: closing ranges must not overlap.
        lock (_closeLock) ClosePages(address);
    }

    private void ClosePages(long address)
    {
        long from = ClosedUntilAddress;
        if (address <= from) return;
        PagesClosing?.Invoke(from, address);
        // Frames are given back before the mark moves: a page turn waiting for it then finds them freed, never one frame
        // more than allowed for a moment.
        TrimIdleFrames(address);
        MonotonicUpdate(ref _closedUntilAddress, address, out _);
    }

    private long _framesDroppedBelowPage; // frames of closed pages below this page that lay below BeginAddress are freed

    /// <summary>
    /// Gives back frames that hold no page in memory (their page is closed: no thread can read it) instead of keeping them
    /// for reuse: every frame whose page lies below BeginAddress (a Clear dropped it), and, over the budget (others grew),
    /// the oldest others until the allocated frames fit AllowedPages.
    /// </summary>
    /// <remarks>closedUntil: pages below it are closed (ClosedUntilAddress, or the address ClosePages is closing to).</remarks>
    private void TrimIdleFrames(long closedUntil)
    {
        int allowed = AllowedPages;
        long closedPage = PageOf(closedUntil); // pages strictly below are closed
        long droppedBelow = Math.Min(PageOf(BeginAddress), closedPage); // pages strictly below are closed and dropped
        if (Volatile.Read(ref _allocatedFrames) <= allowed && droppedBelow <= Volatile.Read(ref _framesDroppedBelowPage)) return;
        lock (_frameLock)
        {
            for (long p = Math.Max(0, closedPage - BufferPages); p < closedPage; p++)
            {
                if (p >= droppedBelow && Volatile.Read(ref _allocatedFrames) <= allowed) break;
                int frame = FrameOfPage(p);
                if (_frames[frame] == null || Volatile.Read(ref _framePage[frame]) != p) continue;
                PageMemory.Free(_frames[frame], PageSize);
                _frames[frame] = null;
                Volatile.Write(ref _framePage[frame], -1);
                Interlocked.Decrement(ref _allocatedFrames);
            }
            if (droppedBelow > _framesDroppedBelowPage) Volatile.Write(ref _framesDroppedBelowPage, droppedBelow);
        }
    }

    /// <summary>Runs action while no page closes (PagesClosing cannot run meanwhile): KVStore.Clear resets the key counts
    /// this way, so a count-out of evicted keys (null device) lands wholly before the reset or sees the cleared index.</summary>
    internal void WhilePagesCannotClose(Action action)
    {
        lock (_closeLock) action();
    }

    /// <summary>
    /// For another user of the budget about to take more (OtherMemoryBytes already counts what it wants): moves the
    /// marks so the log's pages above what is left get flushed and evicted, gives back idle frames, and says whether the
    /// log is within its share now (or at its floor of 2 pages, which it keeps whatever the others take). Writers that
    /// need a new page wait meanwhile (TryAllocate returns 0 until the frame is free).
    /// </summary>
    public bool TryMakeRoomForOthers()
    {
        if (OtherMemoryBytes is null || MemoryBudget <= 0) return true;
        int allowed = AllowedPages;
        ShiftToAllowedPages(allowed);
        TrimIdleFrames(ClosedUntilAddress);
        return MemoryBytes <= (long)allowed << PageBits;
    }

    /// <summary>
    /// When the pages in memory exceed what the budget allows (e.g. objects grew), moves the read-only and head marks
    /// so the excess is flushed and evicted. Cheap when within budget.
    /// </summary>
    public void EnforceBudget()
    {
        if (OtherMemoryBytes is null || MemoryBudget <= 0) return;
        if (ShiftToAllowedPages(AllowedPages)) return;
        long tailPage = PageOf(TailAddress);
        if (MemoryBytes + OtherMemoryBytes() <= MemoryBudget) return;
        // Still over with few pages: objects on the mutable pages. Everything below the tail page becomes read-only
        // and leaves memory once flushed; when the tail page's own objects are heavy, that page is closed too.
        ShiftReadOnly(PageStart(tailPage));
        ShiftHead(PageStart(tailPage));
        if (TailPageIsHeavy?.Invoke(tailPage) == true) CloseTailPage(tailPage);
    }

    /// <summary>When more pages than allowed are in memory, moves the read-only and head marks so the excess is flushed and
    /// evicted; true if it did.</summary>
    private bool ShiftToAllowedPages(int allowed)
    {
        long tailPage = PageOf(TailAddress);
        if (tailPage - PageOf(HeadAddress) + 1 <= allowed) return false;
        ShiftReadOnly(PageStart(Math.Max(0, tailPage - MutablePagesOf(allowed) + 1)));
        ShiftHead(PageStart(tailPage - allowed + 1));
        return true;
    }

    /// <summary>
    /// For a snapshot (writes paused): ends the tail page unless the tail is at a page start, and returns the address
    /// where the next record will go, a page boundary.
    /// </summary>
    public long CloseTailPageForSnapshot()
    {
        while (true)
        {
            // Allocations that do not pause for snapshots (second-chance copies) may race: retry until the page is closed.
            long po = Volatile.Read(ref _tailPageOffset);
            long page = po >> 32, offset = po & 0xFFFFFFFF;
            if (offset == 0 || (page == 0 && offset == FirstValidAddress)) return PageStart(page) + offset;
            if (offset >= PageSize) return PageStart(page + 1);
            if (Interlocked.CompareExchange(ref _tailPageOffset, (page << 32) | (uint)PageSize, po) == po) return PageStart(page + 1);
        }
    }

    /// <summary>Completes once everything below address is on the device.</summary>
    public Task WaitUntilFlushedAsync(long address, CancellationToken cancellation = default) =>
        _device.Persistent ? LogIo.WaitUntilFlushed(this, _epoch, address, cancellation) : Task.CompletedTask;

    internal Exception? FlushError => _flushError;

    /// <summary>Says whether the objects of a page are worth closing it early for (set by the store).</summary>
    public Func<long, bool>? TailPageIsHeavy { get; set; }

    /// <summary>Ends the tail page now (the rest stays zero); the next allocation turns to a new page.</summary>
    private void CloseTailPage(long page)
    {
        long po = Volatile.Read(ref _tailPageOffset);
        if (po >> 32 != page || (po & 0xFFFFFFFF) >= PageSize) return;
        Interlocked.CompareExchange(ref _tailPageOffset, (page << 32) | (uint)PageSize, po);
    }

    /// <summary>Waits until every issued flush has completed (for tests and shutdown).</summary>
    public bool WaitForFlushes(TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (Interlocked.Read(ref _pendingFlushes) > 0)
        {
            if (Environment.TickCount64 > deadline) return false;
            Thread.Sleep(1);
        }
        return true;
    }

    /// <summary>Reads length bytes at address from the device (the record is below HeadAddress); bytes past the data read as zero.</summary>
    public ValueTask<byte[]> ReadFromDeviceAsync(long address, int length) => LogIo.Read(_device, address, length);

    /// <summary>Drops the log below address (records there become unreachable) and deletes whole segments.</summary>
    public void ShiftBeginAddress(long address)
    {
        if (MonotonicUpdate(ref _beginAddress, address, out _))
            _epoch.BumpCurrentEpoch(() => _device.TruncateBelow(address));
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        WaitForFlushes(DeviceFailing ? FlushRetryDelay * 2 : TimeSpan.FromSeconds(30));
        for (int i = 0; i < _frames.Length; i++)
            if (_frames[i] != null) { PageMemory.Free(_frames[i], PageSize); _frames[i] = null; }
    }

    /// <summary>A Memory&lt;byte&gt; over native memory, for device writes.</summary>
    private sealed class UnmanagedMemory(byte* pointer, int length) : System.Buffers.MemoryManager<byte>
    {
        public override Span<byte> GetSpan() => new(pointer, length);
        public override System.Buffers.MemoryHandle Pin(int elementIndex = 0) => new(pointer + elementIndex);
        public override void Unpin() { }
        protected override void Dispose(bool disposing) { }
    }
}

/// <summary>The log could not write to its device (disk full, I/O error): the operation was not done.</summary>
public sealed class LogDeviceException(Exception inner) : IOException("the log device failed: " + inner.Message, inner);

public sealed class HybridLogSettings
{
    /// <summary>log2 of the page size (default 22: 4 MB pages).</summary>
    public int PageBits { get; set; } = 22;
    /// <summary>Pages held in memory (the memory budget of the log divided by the page size); at least 2.</summary>
    public int MemoryPages { get; set; } = 64;
    /// <summary>Fraction of the in-memory pages that stay mutable (updated in place).</summary>
    public double MutableFraction { get; set; } = 0.9;

    public void Validate()
    {
        if (PageBits < 9 || PageBits > 30) throw new ArgumentOutOfRangeException(nameof(PageBits), "page size must be 512 B .. 1 GB");
        if (MemoryPages < 2) throw new ArgumentOutOfRangeException(nameof(MemoryPages), "at least 2 pages must fit in memory");
        if (MutableFraction <= 0 || MutableFraction >= 1) throw new ArgumentOutOfRangeException(nameof(MutableFraction));
    }
}

/// <summary>The log's awaiting code, kept out of the unsafe class (C# does not allow await in unsafe contexts).</summary>
internal static class LogIo
{
    public static async void Flush(IStorageDevice device, long address, ReadOnlyMemory<byte> data, Func<ValueTask>? before, Action<Exception?> done)
    {
        Exception? error = null;
        // Off the caller's stack: the caller is an epoch action, and the completion moves marks (more actions).
        await Task.Yield();
        try
        {
            if (before is not null) await before().ConfigureAwait(false);
            await device.WriteAsync(address, data).ConfigureAwait(false);
        }
        catch (Exception ex) { error = ex; }
        // async void: an exception escaping here would end the process (StorageFaults.Complete contains it). A failure
        // before done ran (an injected fault) makes it a failed write, which the log retries.
        Util.StorageFaults.Complete(error is null ? "log-flush-completion" : null, "a log page flush's completion", (done, error),
            static s => s.done(s.error), static (s, ex) => s.done(ex));
    }

    /// <summary>Runs action on a pool thread after delay.</summary>
    public static async void After(TimeSpan delay, Action action)
    {
        await Task.Delay(delay).ConfigureAwait(false);
        try { action(); }
        catch (Exception ex) { Util.StorageFaults.Report("a delayed log action", ex); }
    }

    public static async Task WaitUntilFlushed(HybridLog log, EpochProtection epoch, long address, CancellationToken cancellation)
    {
        while (log.FlushedUntilAddress < address)
        {
            if (log.FlushError is { } error) throw new LogDeviceException(error);
            epoch.WaitForPendingActions(TimeSpan.Zero);
            await Task.Delay(1, cancellation).ConfigureAwait(false);
        }
    }

    public static async ValueTask<byte[]> Read(IStorageDevice device, long address, int length)
    {
        var buffer = new byte[length];
        int n = await device.ReadAsync(address, buffer).ConfigureAwait(false);
        if (n <= 0) return []; // nothing stored there (null device, truncated segment)
        if (n < length) Array.Clear(buffer, n, length - n);
        return buffer;
    }
}
