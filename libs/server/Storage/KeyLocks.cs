// KeyLocks: striped reader-writer locks over key names. A command holds the stripes of its keys for its whole run, so
// a command made of several engine operations (MSET, RENAME, RESTORE, ...) is atomic to every other command.
// Invariants:
//  - A key name maps to one stripe whatever its database, so COPY ... DB and MOVE hold one stripe for both sides.
//  - Single-step commands hold their stripes shared (the engine makes each single-key operation atomic); multi-step
//    commands hold theirs exclusively; SWAPDB/FLUSHDB/FLUSHALL hold every stripe exclusively while they remap databases.
//  - A holder of several stripes takes them in ascending order, each once, and waits on nothing else while holding them
//    except its own pending disk operations: no deadlock.
//  - A writer first marks the stripe Pending; new shared holders then wait, so a stream of readers cannot starve it.
namespace Garnet.server.Storage;

public sealed class KeyLocks
{
    public const int StripeCount = 4096; // a power of two
    private const int Writer = 1 << 30, Pending = 1 << 29, Busy = Writer | Pending;

    // One word per stripe: the count of shared holders, plus the Writer and Pending bits.
    private readonly int[] _words = new int[StripeCount];

    /// <summary>The stripe of a key name (the client's key, without the database prefix).</summary>
    public static int StripeOf(ReadOnlySpan<byte> key)
    {
        // FNV-1a over 8 bytes at a time, mixed at the end: fast for short keys, spreads long ones.
        ulong h = 14695981039346656037UL;
        while (key.Length >= 8)
        {
            h = (h ^ BitConverter.ToUInt64(key)) * 1099511628211UL;
            key = key.Slice(8);
        }
        foreach (byte b in key) h = (h ^ b) * 1099511628211UL;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9UL;
        h ^= h >> 32;
        return (int)h & (StripeCount - 1);
    }

    public void EnterShared(int stripe)
    {
        ref int w = ref _words[stripe];
        int v = Volatile.Read(ref w);
        if ((v & Busy) == 0 && Interlocked.CompareExchange(ref w, v + 1, v) == v) return;
        var spin = new SpinWait();
        while (true)
        {
            spin.SpinOnce(sleep1Threshold: -1);
            v = Volatile.Read(ref w);
            if ((v & Busy) == 0 && Interlocked.CompareExchange(ref w, v + 1, v) == v) return;
        }
    }

    public void ExitShared(int stripe) => Interlocked.Decrement(ref _words[stripe]);

    public void EnterExclusive(int stripe)
    {
        ref int w = ref _words[stripe];
        var spin = new SpinWait();
        while (true) // claim Pending (only one writer at a time can)
        {
            int v = Volatile.Read(ref w);
            if ((v & Busy) == 0 && Interlocked.CompareExchange(ref w, v | Pending, v) == v) break;
            spin.SpinOnce(sleep1Threshold: -1);
        }
        // No new shared holder can enter now; wait for the current ones to leave.
        while (Volatile.Read(ref w) != Pending) spin.SpinOnce(sleep1Threshold: -1);
        Volatile.Write(ref w, Writer);
    }

    public void ExitExclusive(int stripe) => Volatile.Write(ref _words[stripe], 0);

    /// <summary>Holds every stripe exclusively: no keyed command runs until ExitAll.</summary>
    public void EnterAll()
    {
        for (int i = 0; i < StripeCount; i++) EnterExclusive(i);
    }

    public void ExitAll()
    {
        for (int i = StripeCount - 1; i >= 0; i--) ExitExclusive(i);
    }
}
