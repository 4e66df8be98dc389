// DeferredReads: the wait of a connection whose command finishes once its disk read has (GET of a key on disk), without
// allocating: one reusable ValueTask source per session. The wake-up of a finished read only completes the ValueTask;
// the connection then calls BeforeSendAsync again on its own thread, which completes the read there (callbacks, reply)
// or waits again (a read that went back to the disk).
// Invariants:
//  - One wait at a time: Arm resets the source before the wake-up is registered, and a wake-up completes it once.
//  - The completion runs the connection's continuation inline (on the disk reader's thread) only when the channel says
//    that continuation just posts back to its loop (ISessionChannel.ResumesInline); otherwise on the thread pool.
using System.Threading.Tasks.Sources;

namespace Garnet.server.Session;

internal sealed class DeferredReads : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _core;

    public DeferredReads() => Wake = () => _core.SetResult(true);

    /// <summary>What the store runs when a read has finished (cached: registering it allocates nothing).</summary>
    public Action Wake { get; }

    /// <summary>A new wait; register Wake after this, then return the ValueTask if the work is not done.</summary>
    public ValueTask Arm(bool completeInline)
    {
        _core.Reset();
        _core.RunContinuationsAsynchronously = !completeInline;
        return new ValueTask(this, _core.Version);
    }

    public void GetResult(short token) => _core.GetResult(token);
    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);
    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
