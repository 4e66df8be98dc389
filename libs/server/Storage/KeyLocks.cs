// KeyLocks: striped locks over key names. A command holds the stripes of its keys for its whole run, so a command made
// of several engine operations (MSET, RENAME, RESTORE, ...) is atomic to every other command, and a multi-key read
// (MGET) sees no single-key write half-way through a sequence of them.
// Modes (who may share a stripe):
//   Read      single-key reads                 — with Read, Write, MultiRead
//   Write     single-key writes                — with Read, Write            (the engine makes each one atomic)
//   MultiRead reads of several keys             — with Read, MultiRead
//   Exclusive multi-step or multi-key writes, and SWAPDB/FLUSHDB/FLUSHALL (all stripes) — alone
// Invariants:
//  - A key name maps to one stripe whatever its database, so COPY ... DB and MOVE hold one stripe for both sides.
//  - A holder of several stripes takes them in ascending order, each once, and waits on nothing else while holding them
//    except its own pending disk operations: no deadlock. EnterAll takes them one at a time, in order, for that reason.
//  - An exclusive taker first marks the stripe Pending; no new holder enters then, so a stream of others cannot starve it.
//  - Waiters spin briefly, then sleep (a holder may be waiting for the disk).
//  - A thread that runs several commands under stripes it took once (EXEC) declares them with Hold: while held, its own
//    Enter/Exit of those stripes, and EnterAll/ExitAll over them, do nothing, so it never waits on itself.
namespace Garnet.server.Storage;

public enum KeyLockMode { Read, Write, MultiRead, Exclusive }

public sealed class KeyLocks
{
    public const int StripeCount = 4096; // a power of two

    // One word per stripe: three 16-bit holder counts (Read, Write, MultiRead) and the Pending and Writer bits.
    private const long ReadUnit = 1, WriteUnit = 1L << 16, MultiReadUnit = 1L << 32;
    private const long ReadMask = 0xFFFFL, WriteMask = 0xFFFFL << 16, MultiReadMask = 0xFFFFL << 32;
    private const long Pending = 1L << 48, Writer = 1L << 49, Busy = Pending | Writer;
    private readonly long[] _words = new long[StripeCount];

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

    [ThreadStatic] private static KeyLocks? t_holder;   // the KeyLocks this thread holds stripes of (Hold)
    [ThreadStatic] private static ulong[]? t_heldBits;  // which ones (null: every stripe)

    private bool HeldByThisThread(int stripe) =>
        t_holder == this && (t_heldBits is null || (t_heldBits[stripe >> 6] & (1UL << stripe)) != 0);

    /// <summary>Declares that this thread holds the stripes in bits exclusively (null: every stripe, after EnterAll) until
    /// the returned scope is disposed; see the header.</summary>
    public HeldScope Hold(ulong[]? bits)
    {
        if (t_holder is not null) throw new InvalidOperationException("this thread already holds key locks");
        t_holder = this;
        t_heldBits = bits;
        return new HeldScope();
    }

    public readonly struct HeldScope : IDisposable
    {
        public void Dispose() { t_holder = null; t_heldBits = null; }
    }

    public void Enter(int stripe, KeyLockMode mode)
    {
        if (t_holder is not null && HeldByThisThread(stripe)) return;
        if (mode == KeyLockMode.Exclusive) { EnterExclusive(stripe); return; }
        long unit = Unit(mode), conflicts = mode switch
        {
            KeyLockMode.Read => Busy,
            KeyLockMode.Write => Busy | MultiReadMask,
            _ => Busy | WriteMask,
        };
        ref long w = ref _words[stripe];
        long v = Volatile.Read(ref w);
        if ((v & conflicts) == 0 && Interlocked.CompareExchange(ref w, v + unit, v) == v) return;
        var spin = new SpinWait();
        while (true)
        {
            spin.SpinOnce();
            v = Volatile.Read(ref w);
            if ((v & conflicts) == 0 && Interlocked.CompareExchange(ref w, v + unit, v) == v) return;
        }
    }

    public void Exit(int stripe, KeyLockMode mode)
    {
        if (t_holder is not null && HeldByThisThread(stripe)) return;
        if (mode == KeyLockMode.Exclusive) Volatile.Write(ref _words[stripe], 0);
        else Interlocked.Add(ref _words[stripe], -Unit(mode));
    }

    private static long Unit(KeyLockMode mode) => mode switch
    {
        KeyLockMode.Read => ReadUnit,
        KeyLockMode.Write => WriteUnit,
        _ => MultiReadUnit,
    };

    private void EnterExclusive(int stripe)
    {
        ref long w = ref _words[stripe];
        var spin = new SpinWait();
        while (true) // claim Pending (only one exclusive taker at a time can)
        {
            long v = Volatile.Read(ref w);
            if ((v & Busy) == 0 && Interlocked.CompareExchange(ref w, v | Pending, v) == v) break;
            spin.SpinOnce();
        }
        // No new holder can enter now; wait for the current ones to leave.
        while (Volatile.Read(ref w) != Pending) spin.SpinOnce();
        Volatile.Write(ref w, Writer);
    }

    /// <summary>Holds every stripe exclusively: no keyed command runs until ExitAll.</summary>
    public void EnterAll()
    {
        bool holds = t_holder == this;
        for (int i = 0; i < StripeCount; i++) if (!holds || !HeldByThisThread(i)) EnterExclusive(i);
    }

    public void ExitAll()
    {
        bool holds = t_holder == this;
        for (int i = StripeCount - 1; i >= 0; i--) if (!holds || !HeldByThisThread(i)) Volatile.Write(ref _words[i], 0);
    }
}
