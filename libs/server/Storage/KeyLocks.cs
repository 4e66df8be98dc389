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
//    except its own pending disk operations: no deadlock. EnterAll raises one flag that turns every new holder away, then
//    waits for each stripe to empty; a thread already holding stripes is not turned away (it finishes and leaves), so
//    nothing that EnterAll waits for waits for EnterAll. Enter and Exit of a stripe happen on one thread.
//  - An exclusive taker first marks the stripe Pending; no new holder enters then, so a stream of others cannot starve it.
//  - Waiters spin briefly, then sleep (a holder may be waiting for the disk).
//  - A thread that runs several commands under stripes it took once (EXEC) declares them with Hold: while held, its own
//    Enter/Exit of those stripes, and EnterAll/ExitAll over them, do nothing, so it never waits on itself.
//  - A single-key read may instead read optimistically (TryBeginOptimisticRead / ValidateOptimisticRead): it writes
//    nothing to the stripe, and is valid only if no writer (an exclusive or single-key Write holder of its stripe, or
//    EnterAll) was present at its start or its end and none came and went in between: each exclusive or Write Exit bumps
//    the stripe's version, each ExitAll bumps the all-version, before clearing the word, count or flag. A read that fails
//    validation is redone under Enter. So a validated read saw no write of its key at all, which lets GET copy a value
//    without the record's lock (StoreSession.Read, validatedByCaller).
using Garnet.common.Networking;

namespace Garnet.server.Storage;

public enum KeyLockMode { Read, Write, MultiRead, Exclusive }

public sealed class KeyLocks
{
    private const int StripeBits = 12;
    public const int StripeCount = 1 << StripeBits;

    // One word per stripe: three 16-bit holder counts (Read, Write, MultiRead) and the Pending and Writer bits.
    private const long ReadUnit = 1, WriteUnit = 1L << 16, MultiReadUnit = 1L << 32;
    private const long ReadMask = 0xFFFFL, WriteMask = 0xFFFFL << 16, MultiReadMask = 0xFFFFL << 32;
    private const long Pending = 1L << 48, Writer = 1L << 49, Busy = Pending | Writer;
    private readonly long[] _words = new long[StripeCount];
    private readonly int[] _versions = new int[StripeCount]; // bumped by each exclusive Exit (optimistic readers)
    private int _allVersion;                                  // bumped by each ExitAll

    /// <summary>The stripe of a key name (the client's key, without the database prefix).</summary>
    public static int StripeOf(ReadOnlySpan<byte> key) => StripeOfHash(Garnet.storage.Util.KeyHash.HashKey(key));

    /// <summary>The stripe of a key name whose KeyHash.HashKey is keyHash (its top bits; the index uses the hash of the
    /// stored key, KeyHash.Prefixed, so a caller that hashed the key once has both).</summary>
    public static int StripeOfHash(ulong keyHash) => (int)(keyHash >> (64 - StripeBits));

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
        if ((v & conflicts) == 0 && Interlocked.CompareExchange(ref w, v + unit, v) == v)
        {
            // The CAS is a full fence: either EnterAll sees this holder, or this sees EnterAll's flag and steps back.
            if (MayEnter()) { t_entered++; return; }
            Interlocked.Add(ref w, -unit);
        }
        var spin = new LoopRelease.Spinner(); // a long wait hands this thread's network loop over (LoopRelease)
        while (true)
        {
            spin.SpinOnce();
            if (!MayEnter()) continue;
            v = Volatile.Read(ref w);
            if ((v & conflicts) == 0 && Interlocked.CompareExchange(ref w, v + unit, v) == v)
            {
                if (MayEnter()) { t_entered++; spin.Done(); return; }
                Interlocked.Add(ref w, -unit);
            }
        }
    }

    /// <summary>Enter/Exit for a holder that may leave on another thread (an async task across an await): not counted as
    /// this thread's, so it holds one stripe at a time only.</summary>
    public void EnterDetached(int stripe, KeyLockMode mode)
    {
        Enter(stripe, mode);
        if (t_holder is null || !HeldByThisThread(stripe)) t_entered--;
    }

    public void ExitDetached(int stripe, KeyLockMode mode)
    {
        if (t_holder is null || !HeldByThisThread(stripe)) t_entered++;
        Exit(stripe, mode);
    }

    public void Exit(int stripe, KeyLockMode mode)
    {
        if (t_holder is not null && HeldByThisThread(stripe)) return;
        t_entered--;
        if (mode == KeyLockMode.Exclusive)
        {
            Volatile.Write(ref _versions[stripe], _versions[stripe] + 1); // before the word clears: see the header
            Volatile.Write(ref _words[stripe], 0);
        }
        else
        {
            if (mode == KeyLockMode.Write) Interlocked.Increment(ref _versions[stripe]); // before the count drops: see the header
            Interlocked.Add(ref _words[stripe], -Unit(mode));
        }
    }

    /// <summary>Starts an optimistic single-key read of stripe: false when a writer (exclusive or Write) is there (or
    /// coming), in which case the caller takes the stripe with Enter instead. Writes nothing shared.</summary>
    public bool TryBeginOptimisticRead(int stripe, out long token)
    {
        token = 0;
        if (Volatile.Read(ref _all) != 0) return false;
        int all = Volatile.Read(ref _allVersion);
        if ((Volatile.Read(ref _words[stripe]) & (Busy | WriteMask)) != 0) return false;
        token = ((long)all << 32) | (uint)Volatile.Read(ref _versions[stripe]);
        return true;
    }

    /// <summary>Whether an optimistic read begun with token saw no writer's work: no exclusive or Write holder now, and
    /// none came and went since the start (the versions are unchanged).</summary>
    public bool ValidateOptimisticRead(int stripe, long token)
    {
        Volatile.ReadBarrier(); // the read's loads happen before these
        if ((Volatile.Read(ref _words[stripe]) & (Busy | WriteMask)) != 0) return false;
        if (Volatile.Read(ref _versions[stripe]) != (int)token) return false;
        return Volatile.Read(ref _all) == 0 && Volatile.Read(ref _allVersion) == (int)(token >> 32);
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
        var spin = new LoopRelease.Spinner();
        while (true)
        {
            while (true) // claim Pending (only one exclusive taker at a time can)
            {
                long v = Volatile.Read(ref w);
                if ((v & Busy) == 0 && MayEnter() && Interlocked.CompareExchange(ref w, v | Pending, v) == v) break;
                spin.SpinOnce();
            }
            if (MayEnter()) break;
            Interlocked.Add(ref w, -Pending); // EnterAll began meanwhile: step back (it waits for this stripe to be free)
        }
        // No new holder can enter now; wait for the current ones to leave.
        while (Volatile.Read(ref w) != Pending) spin.SpinOnce();
        Volatile.Write(ref w, Writer);
        t_entered++;
        spin.Done();
    }

    // Stripes this thread entered and has not left. A thread that holds some goes on taking the others (in order) even
    // while EnterAll's flag is up: EnterAll waits for it to finish and leave, so it never waits on EnterAll (no deadlock).
    [ThreadStatic] private static int t_entered;

    private bool MayEnter() => Volatile.Read(ref _all) == 0 || t_entered > 0;

    // EnterAll's flag: while set, no new holder enters any stripe (Enter and EnterExclusive step back after their CAS if
    // they see it); EnterAll then waits for every stripe to be empty. One flag and one scan instead of 4096 exclusive
    // acquisitions: scripts (EVAL, FCALL) take every stripe on each run.
    private int _all;

    /// <summary>Holds every stripe exclusively: no keyed command runs until ExitAll.</summary>
    public void EnterAll()
    {
        bool holds = t_holder == this;
        if (holds && t_heldBits is null) return; // this thread holds everything already (EXEC, a script)
        var spin = new LoopRelease.Spinner();
        while (Interlocked.CompareExchange(ref _all, 1, 0) != 0) spin.SpinOnce();
        if (holds)
        {
            for (int i = 0; i < StripeCount; i++)
            {
                if (HeldByThisThread(i)) continue;
                ref long w = ref _words[i];
                while (Volatile.Read(ref w) != 0) spin.SpinOnce();
            }
            spin.Done();
            return;
        }
        // The common case (a script, FLUSHALL): a vectorised look for a word still in use, waiting only at those. The
        // CAS above is a full fence, and each pass reads the words afresh, so a holder leaving is seen.
        int from = 0;
        while (true)
        {
            int busy = _words.AsSpan(from).IndexOfAnyExcept(0L);
            if (busy < 0) { spin.Done(); return; }
            from += busy;
            ref long w = ref _words[from];
            while (Volatile.Read(ref w) != 0) spin.SpinOnce();
        }
    }

    public void ExitAll()
    {
        if (t_holder == this && t_heldBits is null) return;
        Volatile.Write(ref _allVersion, _allVersion + 1); // before the flag clears: see the header
        Volatile.Write(ref _all, 0);
    }
}
