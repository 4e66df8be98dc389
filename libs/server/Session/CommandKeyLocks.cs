// CommandKeyLocks: takes and releases the key-name stripes of one running command (see Storage/KeyLocks).
// Invariants:
//  - The keys are the ones the command table names (CommandDefinition.KeysOf), so dispatch, COMMAND GETKEYS and locking agree.
//  - Exclusive when the row says the command is multi-step (CommandDefinition.LocksKeysExclusively) or when a write
//    names more than one key; a write of one key takes Write, a read of one key Read, a read of several MultiRead.
//    With the AOF on (orderWrites), every write is Exclusive: two writes of one key then run, and are logged, in turn.
//  - Several stripes are gathered in a bitset and taken in ascending order, each once; Release undoes exactly what
//    Acquire took. Nothing here allocates per command.
//  - A read of one key first tries to run without taking its stripe (TryReadOptimistically); the caller validates after
//    the read and, if an exclusive holder interfered, discards the reply and runs it again under Acquire.
using Garnet.server.Commands;
using Garnet.server.Storage;

namespace Garnet.server.Session;

internal sealed class CommandKeyLocks
{
    private readonly KeyLocks _locks;
    private readonly ulong[] _bits = new ulong[KeyLocks.StripeCount / 64];
    private int _single = -1;   // the one stripe held, or -1
    private bool _multi;        // stripes held are the bits set in _bits
    private KeyLockMode _mode;

    public CommandKeyLocks(KeyLocks locks) => _locks = locks;

    private int _optimisticStripe = -1;
    private long _optimisticToken;

    /// <summary>For a read of exactly one key: begins reading it without taking its stripe (see KeyLocks). False when
    /// the command is not such a read or an exclusive holder is there; then the caller uses Acquire.</summary>
    public bool TryReadOptimistically(CommandDefinition cmd, RespServerSession s)
    {
        if ((cmd.Flags & CommandFlags.Write) != 0 || cmd.LocksKeysExclusively) return false;
        var keys = cmd.KeysOf(s.Context);
        if (keys.First != keys.LastIndex(s.Argc)) return false;
        return TryReadOptimistically(KeyLocks.StripeOf(s.Arg(keys.First)));
    }

    /// <summary>The same for a read of one key already known to be such a read, whose stripe the caller has.</summary>
    public bool TryReadOptimistically(int stripe)
    {
        if (!_locks.TryBeginOptimisticRead(stripe, out _optimisticToken)) return false;
        _optimisticStripe = stripe;
        return true;
    }

    /// <summary>Ends the optimistic read begun by TryReadOptimistically: whether what it read is valid.</summary>
    public bool EndOptimisticRead()
    {
        int stripe = _optimisticStripe;
        _optimisticStripe = -1;
        return _locks.ValidateOptimisticRead(stripe, _optimisticToken);
    }

    /// <summary>Takes the stripes of the command's keys. Returns false when the command names no key.</summary>
    public bool Acquire(CommandDefinition cmd, RespServerSession s, bool orderWrites)
    {
        var keys = cmd.KeysOf(s.Context);
        int argc = s.Argc;
        int last = keys.LastIndex(argc);
        int step = keys.Stride;
        if (keys.First > last) return false;
        int count = (last - keys.First) / step + 1;
        bool write = (cmd.Flags & CommandFlags.Write) != 0;
        _mode = cmd.LocksKeysExclusively || (write && (count > 1 || orderWrites)) ? KeyLockMode.Exclusive
            : write ? KeyLockMode.Write
            : count > 1 ? KeyLockMode.MultiRead : KeyLockMode.Read;
        if (count == 1)
        {
            _single = KeyLocks.StripeOf(s.Arg(keys.First));
            _locks.Enter(_single, _mode);
            return true;
        }
        for (int i = keys.First; i <= last; i += step) Mark(s.Arg(i));
        EnterMarked();
        return true;
    }

    private void Mark(ReadOnlySpan<byte> key)
    {
        int stripe = KeyLocks.StripeOf(key);
        _bits[stripe >> 6] |= 1UL << stripe;
    }

    /// <summary>Takes the marked stripes in _mode, in ascending order.</summary>
    private void EnterMarked()
    {
        _multi = true;
        for (int w = 0; w < _bits.Length; w++)
        {
            ulong word = _bits[w];
            while (word != 0)
            {
                int stripe = (w << 6) | System.Numerics.BitOperations.TrailingZeroCount(word);
                word &= word - 1;
                _locks.Enter(stripe, _mode);
            }
        }
    }

    /// <summary>The stripes held after AcquireExclusive (for KeyLocks.Hold).</summary>
    public ulong[] HeldBits => _bits;

    /// <summary>Takes the stripes of keys exclusively, in ascending order, each once (EXEC: every key of its commands).</summary>
    public void AcquireExclusive(IEnumerable<byte[]> keys)
    {
        _mode = KeyLockMode.Exclusive;
        foreach (var key in keys) Mark(key);
        EnterMarked();
    }

    public void Release()
    {
        if (_single >= 0)
        {
            _locks.Exit(_single, _mode);
            _single = -1;
            return;
        }
        if (!_multi) return;
        for (int w = 0; w < _bits.Length; w++)
        {
            ulong word = _bits[w];
            _bits[w] = 0;
            while (word != 0)
            {
                int stripe = (w << 6) | System.Numerics.BitOperations.TrailingZeroCount(word);
                word &= word - 1;
                _locks.Exit(stripe, _mode);
            }
        }
        _multi = false;
    }
}
