// ContainedFaults: where exceptions caught at thread and callback entry points that have no logger of their own end up
// (FaultPoints.Report in common, StorageFaults.Report in storage): the server's log, category Garnet.Faults. Also logs
// faulted background tasks nobody awaited (TaskScheduler.UnobservedTaskException), which do not end the process.
// Invariants:
//  - Process-wide: the latest server to start reports them (an embedding program with several servers gets one log).
//  - Only the exception is logged (type, message, stack), never a command's arguments: no secret can reach the log.
using Garnet.common.Util;
using Garnet.storage.Util;
using Microsoft.Extensions.Logging;

namespace Garnet;

internal static class ContainedFaults
{
    private static ILogger? s_logger;
    private static int s_hooked;

    public static void ReportTo(ILoggerFactory factory)
    {
        var logger = factory.CreateLogger("Garnet.Faults");
        s_logger = logger;
        FaultPoints.Reporter = Log;
        StorageFaults.Reporter = Log;
        if (Interlocked.Exchange(ref s_hooked, 1) == 0)
            TaskScheduler.UnobservedTaskException += (_, e) =>
            {
                s_logger?.LogError(e.Exception, "A background task failed and nobody awaited it");
                e.SetObserved();
            };
    }

    private static void Log(string where, Exception ex) =>
        s_logger?.LogError(ex, "Unhandled exception in {Where}: contained, the server goes on", where);
}
