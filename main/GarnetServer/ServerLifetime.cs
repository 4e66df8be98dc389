// ServerLifetime: how the executable reacts to SIGTERM, SIGINT, SIGQUIT and the SHUTDOWN command, as Redis does: the
// server stops (connections drained, checkpoint written), then the process exits. When the checkpoint fails (a full disk),
// the server does not exit: it logs "can't exit", listens and serves again, and a later signal tries again.
// Invariant: one stop attempt at a time; signals during an attempt are ignored (the attempt is bounded, see
// docs/configuration.md#shutdown).
using System.Runtime.InteropServices;
using Garnet;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

sealed class ServerLifetime(GarnetServer server, IHostApplicationLifetime application, ILogger<ServerLifetime> logger) : IHostLifetime, IDisposable
{
    private readonly List<PosixSignalRegistration> _signals = new();
    private int _stopping;

    public Task WaitForStartAsync(CancellationToken cancellationToken)
    {
        foreach (var signal in new[] { PosixSignal.SIGTERM, PosixSignal.SIGINT, PosixSignal.SIGQUIT })
            _signals.Add(PosixSignalRegistration.Create(signal, context =>
            {
                context.Cancel = true; // the process exits once the server has stopped, not now
                RequestStop(context.Signal.ToString());
            }));
        server.ShutdownRequested += () => RequestStop("SHUTDOWN");
        return Task.CompletedTask;
    }

    /// <summary>Tries to stop the server off the caller's thread; the application ends only if it stopped.</summary>
    public void RequestStop(string reason)
    {
        if (Interlocked.Exchange(ref _stopping, 1) != 0) return;
        ThreadPool.QueueUserWorkItem(_ =>
        {
            try
            {
                if (reason != "SHUTDOWN") logger.LogWarning("Received {Signal}, scheduling shutdown...", reason);
                if (server.TryStop(TimeSpan.FromSeconds(5))) { application.StopApplication(); return; }
            }
            catch (Exception ex)
            {
                logger.LogCritical("Stopping the server failed: {Error}", ex.Message);
                application.StopApplication();
                return;
            }
            Volatile.Write(ref _stopping, 0); // still running: a later signal tries again
        });
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose()
    {
        foreach (var s in _signals) s.Dispose();
        _signals.Clear();
    }
}
