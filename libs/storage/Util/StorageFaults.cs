// StorageFaults: the last stop of an exception on a storage thread or callback that has no caller to throw to (a disk-read
// completion on a reader or io_uring thread, a page flush's completion, a delayed action, an index split on the thread
// pool). Reported here (logged by the server) instead of ending the process.
// Invariants:
//  - Report never throws. What the failed callback was to do is not retried by Complete: a failure before the completion
//    ran fails its operation (fail), one inside it is only reported. So a completion that answers a request contains its
//    own failures and ends its operation once (the store's op reads: PendingRead; the index split: HashIndexGrowth.cs);
//    the process and other clients go on.
//  - Inject is a test seam (null outside tests): called with a point's name where a fault can be injected.
namespace Garnet.storage.Util;

public static class StorageFaults
{
    /// <summary>Logs a contained exception: (where, exception). Set by the server.</summary>
    public static Action<string, Exception>? Reporter { get; set; }

    /// <summary>Test seam: called at each injection point; throws to inject a fault.</summary>
    public static Action<string>? Inject { get; set; }

    private static long s_reported;
    /// <summary>Exceptions contained so far.</summary>
    public static long Reported => Interlocked.Read(ref s_reported);

    internal static void Hit(string point) => Inject?.Invoke(point);

    /// <summary>
    /// Runs a completion that has no caller to throw to (a disk read's, an object read's, a page flush's), with whatever
    /// it throws contained: run(state) after the injection point (null: none); a failure before run started (an injected
    /// fault) runs fail(state, exception) instead, so the operation still completes, as failed; a failure inside run is
    /// only reported (running it again could complete it twice). Static lambdas and a struct state: no allocation.
    /// </summary>
    internal static void Complete<TState>(string? point, string where, TState state, Action<TState> run, Action<TState, Exception> fail)
    {
        bool entered = false;
        try
        {
            if (point is not null) Hit(point);
            entered = true;
            run(state);
        }
        catch (Exception ex)
        {
            Report(where, ex);
            if (entered) return;
            try { fail(state, ex); }
            catch (Exception again) { Report(where, again); }
        }
    }

    public static void Report(string where, Exception ex)
    {
        Interlocked.Increment(ref s_reported);
        try { Reporter?.Invoke(where, ex); }
        catch { /* a failing logger must not take the thread down either */ }
    }
}
