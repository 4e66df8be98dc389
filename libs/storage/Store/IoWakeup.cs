// IoWakeup: how a StoreSession's owner waits for its disk reads to complete, without allocating per wait. I/O completions
// (any thread) call Set; waiters use WaitAsync (a ValueTask over this object: no Task, no timer) or, on the blocking
// path, Wait(timeout).
// Invariants:
//  - A wake-up, not a count: a Set while nobody waits leaves one pending wake-up, which the next wait consumes; a Set
//    while someone waits wakes every current waiter. Waiters re-check their condition after waking (spurious wake-ups
//    are allowed), so nothing is lost: a completion marks its op done before it calls Set.
//  - The first async waiter uses the reusable ValueTask source; a second one while that is still in use (overlapping
//    waits on one session) gets a shared Task, allocated only then. All state changes under _gate.
//  - Continuations of WaitAsync run on the thread pool, never on the completing I/O thread. A callback given to WhenSet
//    runs inline in Set (on the I/O thread): it must be short and never block.
//  - At most one WhenSet callback is registered at a time (its owner registers again only after it ran).
//  - Set throws nothing (it ends a read's completion): a WhenSet callback that throws is logged, its wake-up left pending.
using System.Threading.Tasks.Sources;

namespace Garnet.storage.Store;

public sealed class IoWakeup : IValueTaskSource
{
    private readonly object _gate = new();
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private bool _signaled;      // a wake-up nobody has consumed yet
    private bool _coreArmed;     // _core waits for a Set
    private bool _coreInUse;     // _core was handed out and its result not yet taken
    private TaskCompletionSource? _extra;
    private Action? _callback;
    private int _syncWaiters;

    /// <summary>Wakes every waiter, or leaves one wake-up for the next wait.</summary>
    public void Set()
    {
        bool completeCore;
        TaskCompletionSource? extra;
        Action? callback;
        lock (_gate)
        {
            completeCore = _coreArmed;
            _coreArmed = false;
            extra = _extra;
            _extra = null;
            callback = _callback;
            _callback = null;
            if (!completeCore && extra is null && callback is null) _signaled = true;
            if (_syncWaiters > 0) { _signaled = true; Monitor.PulseAll(_gate); }
        }
        if (completeCore) _core.SetResult(true);
        extra?.TrySetResult();
        if (callback is null) return;
        try { callback(); }
        catch (Exception ex)
        {
            // Set runs at the end of a read's completion, which must not throw (PendingRead). The wake-up stays pending:
            // the owner's next look at its reads finds them done.
            Util.StorageFaults.Report("a disk read's wake-up", ex);
            lock (_gate) _signaled = true;
        }
    }

    /// <summary>Runs callback at the next Set, inline on the thread that calls it (short, never blocking): true. False
    /// when a wake-up was pending (consumed now; callback is not kept): the caller looks again at once.</summary>
    public bool WhenSet(Action callback)
    {
        lock (_gate)
        {
            if (_signaled) { _signaled = false; return false; }
            _callback = callback;
            return true;
        }
    }

    /// <summary>Completes at the next Set (at once if one is pending).</summary>
    public ValueTask WaitAsync()
    {
        lock (_gate)
        {
            if (_signaled) { _signaled = false; return default; }
            if (!_coreInUse)
            {
                _core.Reset();
                _coreInUse = true;
                _coreArmed = true;
                return new ValueTask(this, _core.Version);
            }
            _extra ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return new ValueTask(_extra.Task);
        }
    }

    /// <summary>Blocks until a Set (or one is pending), at most timeoutMs; true when woken by one.</summary>
    public bool Wait(int timeoutMs)
    {
        lock (_gate)
        {
            if (_signaled) { _signaled = false; return true; }
            _syncWaiters++;
            try { Monitor.Wait(_gate, timeoutMs); }
            finally { _syncWaiters--; }
            if (!_signaled) return false;
            _signaled = false;
            return true;
        }
    }

    void IValueTaskSource.GetResult(short token)
    {
        _core.GetResult(token);
        lock (_gate) _coreInUse = false;
    }

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
