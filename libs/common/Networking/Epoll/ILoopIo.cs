// ILoopIo: I/O that a network loop drives between its waits, besides its sockets: the store's disk reads through the
// loop's own io_uring (Garnet.server's LoopDiskReads). A small seam: the loop knows nothing of rings or stores.
// Invariants: the loop calls every member only from the thread that holds it (Attach when a thread takes the loop,
// Detach before it lets go), and Poll's completions only post connections back to the loop.
namespace Garnet.common.Networking.Epoll;

public interface ILoopIo : IDisposable
{
    /// <summary>Becomes readable when Poll has work; the loop registers it edge-triggered (never reads it).</summary>
    int EventFd { get; }

    /// <summary>The calling thread now holds the loop.</summary>
    void Attach();

    /// <summary>The calling thread no longer holds it.</summary>
    void Detach();

    /// <summary>Within a round: hands over what the round has started so far, so the device works on it while the loop
    /// goes on (the rest of the round's requests, then its replies).</summary>
    void SubmitStarted();

    /// <summary>Just before the loop waits: hands over what this round started. False when the wait must not block
    /// (completions are ready, or something could not be handed over yet).</summary>
    bool BeforeWait();

    /// <summary>After the wait: completes what finished (completions post their connections to the loop).</summary>
    void Poll();
}
