// BusyScript: waits for a script that another client sent to run on an in-process server, read from the server's own
// state (no command another client may send while a script runs tells whether an EVAL runs yet).
// Invariants: bounded waits (Poll.True, 30 s) that return as soon as the state holds; past the threshold is measured from
// the run's own start mark, the one the busy gate compares with busy-reply-threshold, so other clients are then answered
// BUSY at once.
using Garnet.server.Scripting;

namespace Garnet.test;

internal static class BusyScript
{
    /// <summary>Waits until a script runs; returns its run.</summary>
    public static ScriptRun Running(TestServer server)
    {
        ScriptRun? run = null;
        Poll.True(() => (run = server.Server.Server.Scripts.Running) is not null, "the script to start");
        return run!;
    }

    /// <summary>Waits until a script has run for thresholdMs (busy-reply-threshold) and, when given, until also holds
    /// (e.g. the script has written).</summary>
    public static void PastThreshold(TestServer server, int thresholdMs, Func<ScriptRun, bool>? also = null)
    {
        Poll.True(() => server.Server.Server.Scripts.Running is { } run
                        && Environment.TickCount64 - run.StartMs >= thresholdMs
                        && (also is null || also(run)),
            $"the script to run for {thresholdMs} ms");
    }
}
