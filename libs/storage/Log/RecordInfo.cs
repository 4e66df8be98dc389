// RecordInfo: the first 8 bytes of every record, changed only by CAS of the whole word.
// Bits: [47..0] previous address (older record with the same index tag) | 48 tombstone | 49 sealed |
//       50 invalid | 51 has-expiration | 52 object value | 53 sole version | 54 version bit | 55 present (always 1) |
//       [62..56] shared-lock count | 63 exclusive lock.
// Invariants:
//  - The previous address never changes after the record is published in the index.
//  - Value bytes of a record in the mutable region are written only under the exclusive lock and read under a
//    shared lock; records below the read-only address are immutable, so readers there take no lock.
//  - A sealed record has been superseded by a copy being published: operations that find it retry from the index.
//  - An invalid record is never visible (a failed insert); scans and chain walks skip it.
using System.Runtime.CompilerServices;

namespace Garnet.storage.Log;

public static class RecordInfo
{
    public const ulong AddressMask = (1UL << 48) - 1;
    public const ulong Tombstone = 1UL << 48;
    public const ulong Sealed = 1UL << 49;
    public const ulong Invalid = 1UL << 50;
    public const int HasExpirationShift = 51;
    public const ulong HasExpiration = 1UL << HasExpirationShift;
    public const ulong ObjectValue = 1UL << 52;
    /// <summary>No live (non-tombstone) record of this key lies below this one: deleting it can unlink it outright.</summary>
    public const ulong SoleVersion = 1UL << 53;
    public const ulong VersionBit = 1UL << 54;
    /// <summary>Set in every record, so a header word of zero always means "no record here" (end of the page's data).</summary>
    public const ulong Present = 1UL << 55;
    private const ulong SharedUnit = 1UL << 56;
    private const ulong SharedMask = 0x7FUL << 56;
    private const ulong ExclusiveBit = 1UL << 63;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long PreviousAddress(ulong word) => (long)(word & AddressMask);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Is(ulong word, ulong flag) => (word & flag) != 0;

    /// <summary>Takes a shared lock unless the record is exclusively locked, sealed or invalid. Spins briefly.</summary>
    public static bool TryLockShared(ref ulong word)
    {
        var spin = new SpinWait();
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            if ((w & (Sealed | Invalid)) != 0) return false;
            if ((w & ExclusiveBit) == 0 && (w & SharedMask) != SharedMask)
            {
                if (Interlocked.CompareExchange(ref word, w + SharedUnit, w) == w) return true;
                continue;
            }
            spin.SpinOnce(-1);
        }
    }

    public static void UnlockShared(ref ulong word)
    {
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            if (Interlocked.CompareExchange(ref word, w - SharedUnit, w) == w) return;
        }
    }

    /// <summary>Takes the exclusive lock unless the record is sealed or invalid. Spins while readers hold it.</summary>
    public static bool TryLockExclusive(ref ulong word)
    {
        var spin = new SpinWait();
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            if ((w & (Sealed | Invalid)) != 0) return false;
            if ((w & (ExclusiveBit | SharedMask)) == 0)
            {
                if (Interlocked.CompareExchange(ref word, w | ExclusiveBit, w) == w) return true;
                continue;
            }
            spin.SpinOnce(-1);
        }
    }

    public enum LockOutcome { Locked, Tombstoned, Retry }

    /// <summary>
    /// Takes the exclusive lock on a record that is still live. Tombstoned: it was deleted meanwhile (no lock held).
    /// Retry: sealed or invalid (superseded): look the key up again.
    /// </summary>
    public static LockOutcome LockIfLive(ref ulong word)
    {
        if (!TryLockExclusive(ref word)) return LockOutcome.Retry;
        if ((Volatile.Read(ref word) & Tombstone) == 0) return LockOutcome.Locked;
        UnlockExclusive(ref word);
        return LockOutcome.Tombstoned;
    }

    /// <summary>Releases the exclusive lock, setting and clearing flags in the same write.</summary>
    public static void UnlockExclusive(ref ulong word, ulong set = 0, ulong clear = 0)
    {
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            ulong n = ((w & ~ExclusiveBit) | set) & ~clear;
            if (Interlocked.CompareExchange(ref word, n, w) == w) return;
        }
    }

    /// <summary>Sets flags with a CAS loop (e.g. Invalid on a record that failed to publish).</summary>
    public static void SetFlags(ref ulong word, ulong flags)
    {
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            if (Interlocked.CompareExchange(ref word, w | flags, w) == w) return;
        }
    }

    /// <summary>Clears flags with a CAS loop (e.g. Sealed when the copy that superseded a record failed to publish).</summary>
    public static void ClearFlags(ref ulong word, ulong flags)
    {
        while (true)
        {
            ulong w = Volatile.Read(ref word);
            if (Interlocked.CompareExchange(ref word, w & ~flags, w) == w) return;
        }
    }

    /// <summary>The persistent part of the word (locks stripped), as it must be written to disk.</summary>
    public static ulong Persistent(ulong word) => word & ~(ExclusiveBit | SharedMask);
}
