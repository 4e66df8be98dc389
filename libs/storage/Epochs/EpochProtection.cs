// EpochProtection: lets threads announce that they may be reading shared memory, and defers actions
// (freeing a page, moving the head address) until no thread can still be looking at what they change.
// Invariants:
//  - A protected thread has entry.LocalEpoch = the global epoch it saw on Acquire/Refresh; 0 = not protected.
//    Each entry sits on its own 64-byte cache line, so announcing never contends with other threads.
//  - SafeToReclaimEpoch = (smallest LocalEpoch of any protected thread) - 1, or CurrentEpoch - 1 when none is
//    protected. A deferred action tagged with epoch E runs once SafeToReclaimEpoch >= E, exactly once, on
//    whichever thread notices first (during Refresh, Release or BumpCurrentEpoch).
//  - Deferred actions run with the calling thread's protection unchanged; they must not block on other threads.
//  - BumpCurrentEpoch never refreshes the caller (callers may hold pointers into protected memory): when the
//    fixed drain list is full, the action goes to an overflow queue that is drained by the same rule.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Garnet.storage.Epochs;

public sealed unsafe class EpochProtection : IDisposable
{
    /// <summary>Most threads that can hold an epoch slot at once (process-wide).</summary>
    public const int MaxThreads = 512;
    private const int DrainListSize = 64;
    private const long Unprotected = 0;

    [StructLayout(LayoutKind.Explicit, Size = 64)]
    private struct Entry
    {
        [FieldOffset(0)] public long LocalEpoch;
        [FieldOffset(8)] public int ReentrantCount;
    }

    private struct DeferredAction
    {
        public long Epoch;        // long.MaxValue = free; long.MaxValue - 1 = being filled or being run
        public Action? Action;
    }

    private readonly Entry* _table;
    private readonly void* _tableMemory;
    private readonly DeferredAction[] _drainList = new DeferredAction[DrainListSize];
    private readonly System.Collections.Concurrent.ConcurrentQueue<(long epoch, Action action)> _overflow = new();
    private readonly object _overflowDrainLock = new();
    private int _drainCount;
    private long _currentEpoch = 1;
    private long _safeToReclaimEpoch;
    private bool _disposed;

    public EpochProtection()
    {
        _tableMemory = NativeMemory.AlignedAlloc((nuint)(sizeof(Entry) * (MaxThreads + 1)), 64);
        NativeMemory.Clear(_tableMemory, (nuint)(sizeof(Entry) * (MaxThreads + 1)));
        _table = (Entry*)_tableMemory;
        for (int i = 0; i < DrainListSize; i++) _drainList[i].Epoch = long.MaxValue;
    }

    public long CurrentEpoch => Volatile.Read(ref _currentEpoch);
    public long SafeToReclaimEpoch => Volatile.Read(ref _safeToReclaimEpoch);

    /// <summary>True when the calling thread holds protection on this instance.</summary>
    public bool ThisThreadProtected
    {
        get
        {
            int slot = ThreadSlot.Current;
            return slot > 0 && _table[slot].LocalEpoch != Unprotected;
        }
    }

    /// <summary>Enters protection (re-entrant: nested Acquire/Release pairs are counted).</summary>
    public void Acquire()
    {
        ref var e = ref _table[ThreadSlot.Current];
        if (e.ReentrantCount++ > 0) return;
        // A full fence after the announcement (bumpers must see it before this thread reads shared memory): an
        // exchange gives it at a fraction of MFENCE's cost on x86.
        Interlocked.Exchange(ref e.LocalEpoch, Volatile.Read(ref _currentEpoch));
        if (_drainCount > 0) Drain(ComputeSafeToReclaim());
    }

    /// <summary>Leaves protection; runs deferred actions that became due.</summary>
    public void Release()
    {
        ref var e = ref _table[ThreadSlot.Current];
        if (e.ReentrantCount <= 0) throw new InvalidOperationException("Release without Acquire");
        if (--e.ReentrantCount > 0) return;
        Interlocked.Exchange(ref e.LocalEpoch, Unprotected); // full fence: the drain check below must see others' state
        if (_drainCount > 0) Drain(ComputeSafeToReclaim());
    }

    /// <summary>Moves the calling (protected) thread to the current epoch; runs due deferred actions.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Refresh()
    {
        ref var e = ref _table[ThreadSlot.Current];
        Debug.Assert(e.LocalEpoch != Unprotected, "Refresh requires protection");
        Volatile.Write(ref e.LocalEpoch, Volatile.Read(ref _currentEpoch));
        if (_drainCount > 0) Drain(ComputeSafeToReclaim());
    }

    /// <summary>Advances the global epoch. Returns the new epoch.</summary>
    public long BumpCurrentEpoch()
    {
        long next = Interlocked.Increment(ref _currentEpoch);
        if (_drainCount > 0) Drain(ComputeSafeToReclaim());
        return next;
    }

    /// <summary>
    /// Advances the global epoch and runs action once every thread has left the epoch before the bump
    /// (i.e. nobody can still see the state the action is about to change).
    /// </summary>
    public void BumpCurrentEpoch(Action action)
    {
        long prior = Interlocked.Increment(ref _currentEpoch) - 1;
        for (int i = 0; i < DrainListSize; i++)
        {
            if (Volatile.Read(ref _drainList[i].Epoch) != long.MaxValue) continue;
            if (Interlocked.CompareExchange(ref _drainList[i].Epoch, long.MaxValue - 1, long.MaxValue) != long.MaxValue) continue;
            _drainList[i].Action = action;
            Interlocked.Increment(ref _drainCount);
            Volatile.Write(ref _drainList[i].Epoch, prior);
            Drain(ComputeSafeToReclaim());
            return;
        }
        // Every slot is taken: queue it. The queue drains front to back: an action never runs early, though it may
        // wait behind one queued before it with a later epoch.
        lock (_overflowDrainLock)
        {
            Interlocked.Increment(ref _drainCount);
            _overflow.Enqueue((prior, action));
        }
        Drain(ComputeSafeToReclaim());
    }

    /// <summary>Computes and publishes the newest epoch no protected thread can still be in.</summary>
    private long ComputeSafeToReclaim()
    {
        long oldest = Volatile.Read(ref _currentEpoch);
        for (int i = 1; i <= MaxThreads; i++)
        {
            long e = Volatile.Read(ref _table[i].LocalEpoch);
            if (e != Unprotected && e < oldest) oldest = e;
        }
        long safe = oldest - 1;
        long seen = Volatile.Read(ref _safeToReclaimEpoch);
        while (safe > seen)
        {
            long prev = Interlocked.CompareExchange(ref _safeToReclaimEpoch, safe, seen);
            if (prev == seen) break;
            seen = prev;
        }
        return Math.Max(safe, seen);
    }

    [ThreadStatic] private static bool t_draining;

    /// <summary>
    /// Runs due actions. Not re-entrant on a thread: an action that bumps the epoch (and so drains) does not nest another
    /// round inside itself, which could otherwise recurse as deep as the queue is long; the outer round repeats instead.
    /// </summary>
    private void Drain(long safeEpoch)
    {
        if (t_draining) return;
        t_draining = true;
        try
        {
            for (int round = 0; round < 16; round++)
            {
                if (!DrainOnce(safeEpoch)) break;
                safeEpoch = ComputeSafeToReclaim();
            }
        }
        finally { t_draining = false; }
    }

    private bool DrainOnce(long safeEpoch)
    {
        bool ran = false;
        for (int i = 0; i < DrainListSize; i++)
        {
            long epoch = Volatile.Read(ref _drainList[i].Epoch);
            if (epoch > safeEpoch || epoch >= long.MaxValue - 1) continue;
            if (Interlocked.CompareExchange(ref _drainList[i].Epoch, long.MaxValue - 1, epoch) != epoch) continue;
            var action = _drainList[i].Action!;
            _drainList[i].Action = null;
            Volatile.Write(ref _drainList[i].Epoch, long.MaxValue);
            Interlocked.Decrement(ref _drainCount);
            ran = true;
            action();
        }
        if (!_overflow.IsEmpty)
        {
            while (true)
            {
                (long epoch, Action action) item;
                lock (_overflowDrainLock)
                {
                    if (!_overflow.TryPeek(out item) || item.epoch > safeEpoch) break;
                    _overflow.TryDequeue(out item);
                    Interlocked.Decrement(ref _drainCount);
                }
                ran = true;
                item.action();
            }
        }
        return ran;
    }

    /// <summary>Number of deferred actions not yet run.</summary>
    public int PendingActions => Volatile.Read(ref _drainCount);

    /// <summary>Waits (refreshing the caller if protected) until every deferred action has run, or the timeout passes.</summary>
    public bool WaitForPendingActions(TimeSpan timeout)
    {
        var sw = Stopwatch.StartNew();
        while (PendingActions > 0)
        {
            if (ThisThreadProtected) Refresh();
            else Drain(ComputeSafeToReclaim());
            if (sw.Elapsed > timeout) return false;
            Thread.Yield();
        }
        return true;
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        NativeMemory.AlignedFree(_tableMemory);
    }

    /// <summary>
    /// A process-wide slot index per thread (1..MaxThreads), shared by all EpochProtection instances. The slot is
    /// returned when the thread dies (the thread-static holder is finalized), so thread-pool churn cannot leak slots.
    /// </summary>
    private static class ThreadSlot
    {
        private static readonly int[] s_owners = new int[MaxThreads + 1];
        [ThreadStatic] private static SlotHolder? t_holder;

        public static int Current
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get => t_holder?.Slot ?? Claim();
        }

        private static int Claim()
        {
            int start = 1 + (Environment.CurrentManagedThreadId % MaxThreads);
            for (int attempt = 0; attempt < 3; attempt++)
            {
                for (int k = 0; k < MaxThreads; k++)
                {
                    int i = 1 + ((start - 1 + k) % MaxThreads);
                    if (Volatile.Read(ref s_owners[i]) == 0 && Interlocked.CompareExchange(ref s_owners[i], 1, 0) == 0)
                    {
                        t_holder = new SlotHolder(i);
                        return i;
                    }
                }
                // Slots of dead threads come back through finalizers.
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            throw new InvalidOperationException($"EpochProtection: more than {MaxThreads} threads hold epoch slots at once");
        }

        private sealed class SlotHolder(int slot)
        {
            public readonly int Slot = slot;
            ~SlotHolder() => Volatile.Write(ref s_owners[Slot], 0);
        }
    }
}
