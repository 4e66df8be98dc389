// LoopDiskReads: gives each epoll network loop its own io_uring for the store's record reads (storage's LoopReadRing
// behind the network's ILoopIo seam). A GET of a key on disk then goes from the loop to the kernel and back to the same
// loop with no other thread in between; docs/storage.md, "Disk reads".
// Invariants: used only when disk reads use io_uring (not with --disk-read-engine threads); a loop whose ring cannot be
// made (no io_uring, no eventfd registration) runs without one, and its reads go to the shared ring as before.
using Garnet.common.Networking.Epoll;
using Garnet.storage.Devices;

namespace Garnet.server.Storage;

internal sealed class LoopDiskReads(LoopReadRing ring) : ILoopIo
{
    /// <summary>What makes each loop's rings under these settings, or null when loops get none.</summary>
    public static Func<ILoopIo?>? FactoryFor(ServerSettings settings) =>
        settings.DiskReadMode == DiskReadMode.Threads ? null
            : () => LoopReadRing.TryCreate(settings.ReadQueueDepth, out _) is { } ring ? new LoopDiskReads(ring) : null;

    public int EventFd => ring.EventFd;
    public void Attach() => ring.Attach();
    public void Detach() => ring.Detach();
    public void SubmitStarted() => ring.Submit();
    public bool BeforeWait() => ring.Submit() && !ring.HasCompletions;
    public void Poll() => ring.Poll();
    public void Dispose() => ring.Dispose();
}
