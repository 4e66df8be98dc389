// PendingRead: the disk read of a store operation that waits for it (StoreSession's pending ops: a GET of a key on disk,
// an upsert or RMW whose chain left memory, a prefetch), ended exactly once, whatever its completion throws.
// Invariants:
//  - Begin (on the session's thread, before the read is started) opens a read under a new ticket. A completion takes
//    Ticket when it starts: the op is not started again before its read has ended, so that is its own read's ticket (a
//    completion that starts the rest of a long record hands the same read on: the ticket stays).
//  - TryEnd(ticket) succeeds once per ticket, and only for the read still open. Its winner alone writes the outcome and
//    then sets ReadDone. So a completion that throws part way still ends its read, as failed, unless it had ended it:
//    the read is never left open (its client would wait for a reply forever) nor ended twice (the op may already be
//    running another request's read).
//  - What runs after a winning TryEnd (writing the outcome, ReadDone, the wake-up) throws nothing.
namespace Garnet.storage.Store;

public abstract class PendingRead : Devices.BufferedDeviceRead
{
    private int _lastTicket;
    private int _open; // the ticket of the read in flight; 0 when none is

    /// <summary>The read has ended (outcome written): set last, read by the session's thread.</summary>
    public volatile bool ReadDone;

    /// <summary>Why the read failed (null: it did not).</summary>
    public Exception? Error;

    /// <summary>Opens a read (the session's thread, before starting it): its ticket.</summary>
    internal int Begin()
    {
        int ticket = ++_lastTicket;
        if (ticket == 0) ticket = ++_lastTicket; // 0 means none
        ReadDone = false;
        Volatile.Write(ref _open, ticket);
        return ticket;
    }

    /// <summary>The ticket of the read in flight (what a completion takes when it starts).</summary>
    internal int Ticket => Volatile.Read(ref _open);

    /// <summary>True for the one caller that ends the read of this ticket; false when it has ended already.</summary>
    internal bool TryEnd(int ticket) => ticket != 0 && Interlocked.CompareExchange(ref _open, 0, ticket) == ticket;
}
