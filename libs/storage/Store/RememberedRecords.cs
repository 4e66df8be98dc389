// RememberedRecords: disk records a session's Prefetch read and kept (as bytes) instead of copying them to the log's tail,
// for the operation that follows: the header of an object record read without its object, and a whole small record the
// read admission did not let into memory (a key missed once, ReadAdmission). One session's, not thread-safe.
// Invariants:
//  - An entry is trusted only at its ChainPosition (below), as the session's ring of keys known absent is.
//  - Whole records live in one arena per session, bounded (MaxWholeRecordBytes each, WholeCapacity records, ArenaBytes in
//    all), and never overwrite one another: when one does not fit, the caller copies it to the tail as before, so an
//    operation read ahead never has to wait for the disk again. The arena is reused once no whole record is held
//    (ForgetUsed after a request, ForgetAll when the connection is idle), and kept across idle times only up to
//    RetainedArenaBytes, so a steady stream of reads allocates nothing and an idle connection holds little.
//  - Headers overwrite the oldest header (a forgotten header only costs a read); each is its own small array.
using Garnet.storage.Log;

namespace Garnet.storage.Store;

/// <summary>
/// Where a Prefetch found a key's chain: its hash, the index entry the chain started at, and the address where it left
/// memory. What the Prefetch learned there (the key's newest record on disk, or that it has none) holds while a later
/// walk still starts at that entry and leaves memory at that address: a newer record of the key would have changed the
/// entry or lie above that address on the walk.
/// </summary>
internal readonly record struct ChainPosition(ulong Hash, long Entry, long FirstDisk)
{
    /// <summary>True when a walk of hash that started at entry and left memory at firstDisk is at this position.</summary>
    public bool Is(ulong hash, long entry, long firstDisk) => Hash == hash && Entry == entry && FirstDisk == firstDisk && entry != 0;
}

internal sealed unsafe class RememberedRecords
{
    /// <summary>Entries at most (whole records and headers together).</summary>
    public const int Capacity = 64;
    /// <summary>Whole records at most: the other slots stay for headers.</summary>
    public const int WholeCapacity = 48;
    /// <summary>Largest whole record kept here; a larger one is copied to the tail.</summary>
    public const int MaxWholeRecordBytes = 2048;
    /// <summary>The arena's largest size.</summary>
    public const int ArenaBytes = 32 * 1024;
    /// <summary>Arena bytes an idle connection keeps for its next reads.</summary>
    public const int RetainedArenaBytes = 8 * 1024;

    private struct Entry
    {
        public ChainPosition At;
        public byte[]? Header; // an object record's header, exactly sized
        public int Offset;     // a whole record: where in the arena (Length > 0)
        public int Length;
        public bool Used;      // a whole record read since it was kept: dropped by ForgetUsed
        public readonly bool Whole => Length > 0;
        public readonly bool Free => Header is null && Length == 0;
    }

    private readonly Entry[] _entries = new Entry[Capacity];
    private byte[] _arena = [];
    private int _arenaUsed;
    private int _nextHeader;
    private int _whole; // whole records held
    private readonly int[] _usedAt = new int[WholeCapacity]; // the slots of whole records read since kept
    private int _used;

    /// <summary>The bytes kept for key at (entry, firstDisk), or empty; marks a whole record used. Valid until the next
    /// call that keeps or forgets.</summary>
    public ReadOnlySpan<byte> Find(ReadOnlySpan<byte> key, ulong hash, long entry, long firstDisk)
    {
        int i = IndexOf(key, hash, entry, firstDisk, wholeOnly: false);
        if (i < 0) return default;
        ref var e = ref _entries[i];
        if (!e.Whole) return e.Header;
        if (!e.Used) { e.Used = true; _usedAt[_used++] = i; }
        return _arena.AsSpan(e.Offset, e.Length);
    }

    /// <summary>True when a whole record is kept for this chain position (a Prefetch for a read needs no read then).</summary>
    public bool HasWhole(ReadOnlySpan<byte> key, ulong hash, long entry, long firstDisk) =>
        _whole > 0 && IndexOf(key, hash, entry, firstDisk, wholeOnly: true) >= 0;

    private int IndexOf(ReadOnlySpan<byte> key, ulong hash, long entry, long firstDisk, bool wholeOnly)
    {
        if (entry == 0) return -1;
        for (int i = 0; i < _entries.Length; i++)
        {
            ref var e = ref _entries[i];
            if (e.Free || (wholeOnly && !e.Whole) || !e.At.Is(hash, entry, firstDisk)) continue;
            var bytes = e.Whole ? _arena.AsSpan(e.Offset, e.Length) : e.Header;
            fixed (byte* rec = bytes)
                if (RecordLayout.Key(rec).SequenceEqual(key)) return i;
        }
        return -1;
    }

    /// <summary>Keeps an object record's header (its bytes without the object), over the oldest header if need be.</summary>
    public void KeepHeader(ulong hash, long entry, long firstDisk, byte* record)
    {
        int size = RecordLayout.TotalSize(record);
        for (int n = 0; n < _entries.Length; n++)
        {
            int i = (_nextHeader + n) % _entries.Length;
            if (_entries[i].Whole) continue;
            _entries[i] = new Entry { At = new(hash, entry, firstDisk), Header = new ReadOnlySpan<byte>(record, size).ToArray() };
            _nextHeader = (i + 1) % _entries.Length;
            return;
        }
    }

    /// <summary>Keeps a whole record in a free slot; false (nothing kept) when it is too large or does not fit.</summary>
    public bool TryKeepWhole(ulong hash, long entry, long firstDisk, byte* record)
    {
        int size = RecordLayout.TotalSize(record);
        if (size > MaxWholeRecordBytes || entry == 0 || _whole >= WholeCapacity || _arenaUsed + size > ArenaBytes) return false;
        int slot = -1;
        for (int i = 0; i < _entries.Length && slot < 0; i++)
            if (_entries[i].Free) slot = i;
        if (slot < 0) return false;
        if (_arenaUsed + size > _arena.Length)
        {
            var grown = new byte[Math.Min(ArenaBytes, Math.Max(_arena.Length * 2, Math.Max(1024, _arenaUsed + size)))];
            _arena.AsSpan(0, _arenaUsed).CopyTo(grown);
            _arena = grown;
        }
        new ReadOnlySpan<byte>(record, size).CopyTo(_arena.AsSpan(_arenaUsed));
        _entries[slot] = new Entry { At = new(hash, entry, firstDisk), Offset = _arenaUsed, Length = size };
        _arenaUsed += size;
        _whole++;
        return true;
    }

    /// <summary>Drops the whole records read since they were kept (after the request that read them).</summary>
    public void ForgetUsed()
    {
        while (_used > 0) Forget(_usedAt[_used - 1]);
    }

    /// <summary>Drops every whole record (nothing read ahead is still to run); headers stay.</summary>
    public void ForgetAll()
    {
        if (_whole > 0)
            for (int i = 0; i < _entries.Length; i++)
                if (_entries[i].Whole) Forget(i);
        if (_arena.Length > RetainedArenaBytes) _arena = [];
    }

    private void Forget(int i)
    {
        if (_entries[i].Used)
        {
            int at = Array.IndexOf(_usedAt, i, 0, _used);
            _usedAt[at] = _usedAt[--_used]; // the last one takes its place
        }
        _entries[i] = default;
        if (--_whole == 0) _arenaUsed = 0; // the arena is empty again
    }
}
