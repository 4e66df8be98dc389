// StoreSession: runs operations for one thread of work (a connection, a test thread). Not thread-safe: one caller
// at a time. Operations that need the disk return Status.Pending; CompletePending runs their continuations on the
// caller's thread, strictly in the order the operations were issued, and reports them through the callbacks.
// Invariants:
//  - Each operation runs between Epoch.Acquire and Epoch.Release (re-entrant, so a caller may hold protection
//    across a batch). No pointer into the log survives a Refresh: when the log must wait for a page, the operation
//    undoes what it started (unseal) and restarts.
//  - Records in the fuzzy region [SafeReadOnlyAddress, ReadOnlyAddress) may still be changed in place by a thread
//    that saw them as mutable: writers that find a live record there wait (refresh) and retry instead of copying it,
//    and readers lock every record at or above SafeReadOnlyAddress.
//  - A pending operation remembers the index entry address its search began at. When its disk read resolves, it
//    completes only if that entry is unchanged; otherwise it restarts from the index (keeping its place in order).
using System.Runtime.CompilerServices;
using Garnet.storage.Index;
using Garnet.storage.Log;

namespace Garnet.storage.Store;

public sealed unsafe class StoreSession<TInput, TOutput, TFunctions> : IDisposable
    where TFunctions : struct, IStoreFunctions<TInput, TOutput>
{
    private enum OpKind { Read, Upsert, Rmw, Delete, Prefetch }

    /// <summary>An operation waiting for the disk; it is its own device read (reused, so a read allocates nothing).</summary>
    private sealed class PendingOp(StoreSession<TInput, TOutput, TFunctions> owner) : PendingRead
    {
        public OpKind Kind;
        private byte[] _key = [];     // kept from op to op (grown as keys need)
        private int _keyLength;
        public ReadOnlySpan<byte> Key => _key.AsSpan(0, _keyLength);

        public void SetKey(ReadOnlySpan<byte> key)
        {
            if (_key.Length < key.Length) _key = new byte[Math.Max(key.Length, 32)];
            key.CopyTo(_key);
            _keyLength = key.Length;
        }

        public void ClearKey()
        {
            _keyLength = 0;
            if (_key.Length > 256) _key = [];
        }
        public byte[]? Value;
        public object? ValueObject;   // Upsert of an object
        public byte ValueKind;        // Upsert of bytes: the record's kind tag (0: a plain byte value)
        public long Expiration;
        public bool OnlyIfExpired;    // Delete: only a key whose newest record has expired
        public byte PrefetchKind;     // Prefetch: the object kind the caller needs (0: any; see Prefetch)
        public bool PrefetchForRead;  // Prefetch: only reads follow (the read admission decides whether to copy)
        public TInput Input = default!;
        public TOutput Output = default!;
        public ulong Hash;
        public long EntryAddress;
        public long FirstDiskAddress; // where the in-memory chain left for the disk
        public long DiskAddress;
        public int RecordLength;      // bytes of the record read, at Data (0: none)
        public bool WholeRecordRead;  // the read in flight is the second, of the whole record
        public object? Object;        // the object of the record read (once ObjectLoaded)
        public bool ObjectLoaded;
        public Action<object?, Exception?>? OnObject;

        protected override void Completed(int bytes, Exception? error) => owner.OnRecordRead(this, bytes, error);
    }

    private readonly Stack<PendingOp> _freeOps = new();

    private readonly KVStore _store;
    private readonly HybridLog _log;
    private readonly HashIndex _index;
    private TFunctions _functions;
    private readonly Queue<PendingOp> _pending = new();
    private readonly IoWakeup _ioSignal = new();
    private PendingOp? _rearm; // set while a pending op restarts, so a new wait reuses it (and its queue place)
    private long[] _retired = new long[RetireBatch]; // unlinked records, handed to the free pool a batch at a time
    private int _retiredCount;
    private const int RetireBatch = 16;

    internal StoreSession(KVStore store, TFunctions functions)
    {
        _store = store;
        _log = store.Log;
        _index = store.Index;
        _functions = functions;
    }

    public int PendingCount => _pending.Count;

    /// <summary>The session's callbacks (a copy of the struct).</summary>
    public TFunctions Functions => _functions;

    // ------------------------------------------------------------------------------------------------------
    // Read
    // ------------------------------------------------------------------------------------------------------

    /// <remarks>validatedByCaller: the caller checks afterwards that no writer of this key ran during the read (and redoes
    /// it otherwise), and its Reader only copies the value's bytes: a byte record in the mutable region is then read
    /// without its shared lock (readers of a hot key on several cores no longer move its header line between them). A
    /// torn copy is possible and must be thrown away by the caller; an object record is always read locked.</remarks>
    public Status Read(ReadOnlySpan<byte> key, ref TInput input, ref TOutput output, bool validatedByCaller = false)
    {
        if (_holdsEpoch) return ReadCore(key, KeyHashOf(key), ref input, ref output, validatedByCaller);
        _store.Epoch.Acquire();
        try { return ReadCore(key, KeyHashOf(key), ref input, ref output, validatedByCaller); }
        finally { _store.Epoch.Release(); }
    }

    private bool _holdsEpoch;

    /// <summary>
    /// Protects this thread for a run of Reads (a batch of plain GETs): Read then skips its own announcement (two
    /// thread-static look-ups and a fenced exchange). Only for the thread that runs the session now; nothing may wait
    /// while it is held (LeaveHeldEpoch first). Other operations announce as usual (re-entrant).
    /// </summary>
    public void HoldEpoch()
    {
        if (_holdsEpoch) return;
        _store.Epoch.Acquire();
        _holdsEpoch = true;
    }

    /// <summary>Ends HoldEpoch (no-op when not held).</summary>
    public void LeaveHeldEpoch()
    {
        if (!_holdsEpoch) return;
        _holdsEpoch = false;
        _store.Epoch.Release();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong KeyHashOf(ReadOnlySpan<byte> key) => Util.KeyHash.Hash(key);

    private Status ReadCore(ReadOnlySpan<byte> key, ulong hash, ref TInput input, ref TOutput output, bool validatedByCaller = false)
    {
        var spin = new SpinWait();
        while (true)
        {
            if (!_index.TryFind(hash, out var slot, out long entry)) return Status.NotFound;
            var search = _store.FindInMemory(key, entry, 0, out long address, out byte* rec);
            if (search == KVStore.Search.NotFound || (search == KVStore.Search.OnDisk && KnownAbsent(hash, entry, address))) return Status.NotFound;
            if (search == KVStore.Search.OnDisk)
            {
                var known = KnownHeader(key, hash, entry, address);
                if (!known.IsEmpty && TryReadHeader(known, hash, ref input, ref output, out var answered)) return answered;
                return GoPending(OpKind.Read, key, hash, entry, address, ref input, ref output, null, 0);
            }
            ref ulong info = ref RecordLayout.Info(rec);
            bool mutable = address >= _log.SafeReadOnlyAddress; // in-place updates may still happen down to SafeReadOnly
            if ((Volatile.Read(ref info) & RecordInfo.Tombstone) != 0) return Status.NotFound;
            if (_store.IsExpired(rec)) return Status.NotFound | Status.Expired;
            bool locking = mutable && !(validatedByCaller && !RecordLayout.IsObject(rec));
            if (locking ? !RecordInfo.TryLockShared(ref info) : (Volatile.Read(ref info) & (RecordInfo.Sealed | RecordInfo.Invalid)) != 0)
            {
                // Sealed: a newer copy is being published. Let the epoch move (we hold no pointer now) and look again.
                _store.Epoch.Refresh();
                spin.SpinOnce(-1);
                continue;
            }
            try
            {
                if ((Volatile.Read(ref info) & RecordInfo.Tombstone) != 0) return Status.NotFound;
                var rr = MemRef(rec, address, false);
                bool found = _functions.Reader(ref rr, ref input, ref output);
                // About to leave memory and read again: keep it (immutable here, so the copy cannot tear; objects stay,
                // their in-memory object cannot be shared by two records).
                if (found && !mutable && _store.Settings.CopyReadsFromDiskToTail && !RecordLayout.IsObject(rec)
                    && ReadAdmission.NearHead(address, _log.HeadAddress, _log.TailAddress))
                    CopyToTail(slot, HashIndex.TagOf(hash), entry, rec, null);
                return found ? Status.Found : Status.NotFound;
            }
            finally
            {
                if (locking) RecordInfo.UnlockShared(ref info);
            }
        }
    }

    /// <summary>
    /// Reads key's newest record from memory with reader (InMemoryRead.cs), for a caller that holds the epoch and
    /// validates afterwards as Read's validatedByCaller. Declined, and nothing done, when Read would do more than read the
    /// bytes: the key's chain reaches the disk, its record expired (Read reports it for deletion), is being replaced
    /// (sealed) or is an object record, or lies in the oldest quarter of memory where Read copies it to the tail; or when
    /// reader declines.
    /// </summary>
    /// <remarks>The stored key is prefix (2 bytes, big-endian) and key, and keyHash is KeyHash.HashKey(key): the caller
    /// hashed the client's key once, for its lock stripe too, and no stored key is built.</remarks>
    public InMemoryRead ReadInMemory<TReader>(ushort prefix, ReadOnlySpan<byte> key, ulong keyHash, ref TReader reader)
        where TReader : struct, IRecordReader
    {
        if (!_holdsEpoch) throw new InvalidOperationException("ReadInMemory needs HoldEpoch");
        if (!_index.TryFind(Util.KeyHash.Prefixed(keyHash, prefix), out _, out long entry)) return InMemoryRead.NotFound;
        var search = _store.FindInMemory(prefix, key, entry, 0, out long address, out byte* rec);
        if (search == KVStore.Search.NotFound) return InMemoryRead.NotFound;
        if (search == KVStore.Search.OnDisk) return InMemoryRead.Declined;
        ulong info = Volatile.Read(ref RecordLayout.Info(rec));
        if ((info & RecordInfo.Tombstone) != 0) return InMemoryRead.NotFound;
        if ((info & (RecordInfo.Sealed | RecordInfo.Invalid)) != 0 || RecordLayout.IsObject(rec) || _store.IsExpired(rec)
            || (address < _log.SafeReadOnlyAddress && _store.Settings.CopyReadsFromDiskToTail
                && ReadAdmission.NearHead(address, _log.HeadAddress, _log.TailAddress)))
            return InMemoryRead.Declined;
        var rr = new RecordRef(rec, false);
        return reader.TryRead(ref rr) ? InMemoryRead.Found : InMemoryRead.Declined;
    }

    /// <summary>
    /// Brings key's newest record into memory without running any callback: Found or NotFound when nothing needs the disk
    /// (in memory, or no record), Pending when its read was issued; completing it (CompletePending/CompletePendingAsync)
    /// copies the record to the tail (second chance), so a command run afterwards finds it in memory. A hint: the
    /// record may leave memory again before that command runs, which then waits for the disk as usual.
    /// </summary>
    /// <remarks>objectKind: the object kind (IObjectSerializer.KindOf) the command will need, 0 for any,
    /// <see cref="RecordRef.HeaderOnly"/> for none. An object record on disk tagged with another kind is not loaded nor copied: its
    /// header is remembered instead (see KnownHeader), and the command's Read or RMW that follows answers from it when the
    /// callbacks can do without the object (IStoreFunctions.NeedsObject), e.g. WRONGTYPE or TYPE, without the disk.
    /// forRead: the operations that follow only read the key (Read). A small non-object record is then copied to the tail
    /// only when the read admission lets it in (ReadAdmission: a key missed twice); otherwise its bytes are kept in this
    /// session (RememberedRecords) and the Read answers from them, so keys read once do not push hot ones out of memory.
    /// The caller gives them back with ForgetUsedRecords after the request and ForgetRememberedRecords when idle.</remarks>
    public Status Prefetch(ReadOnlySpan<byte> key, byte objectKind = 0, bool forRead = false)
    {
        _store.Epoch.Acquire();
        try { return PrefetchCore(key, KeyHashOf(key), objectKind, forRead); }
        finally { _store.Epoch.Release(); }
    }


    // Records a Prefetch read from disk and kept as bytes for the operation that follows (RememberedRecords.cs): headers
    // of object records read without their objects, and small records the read admission kept out of memory. Made on
    // first use (most sessions never need it).
    private RememberedRecords? _remembered;

    private ReadOnlySpan<byte> KnownHeader(ReadOnlySpan<byte> key, ulong hash, long entry, long firstDisk) =>
        _remembered is null ? default : _remembered.Find(key, hash, entry, firstDisk);

    private void RememberHeader(PendingOp op, byte* diskRecord) =>
        (_remembered ??= new()).KeepHeader(op.Hash, op.EntryAddress, op.FirstDiskAddress, diskRecord);

    /// <summary>The request that read ahead has run: the records it read from what Prefetch kept are given back.</summary>
    public void ForgetUsedRecords() => _remembered?.ForgetUsed();

    /// <summary>Nothing read ahead is still to run (the connection's input is all consumed): every kept record is given back.</summary>
    public void ForgetRememberedRecords() => _remembered?.ForgetAll();

    /// <summary>A Read answered from a remembered record (an object record's header, or a whole small record): false when
    /// it needs the object (or the record has expired since, which the disk path reports properly).</summary>
    private bool TryReadHeader(ReadOnlySpan<byte> header, ulong hash, ref TInput input, ref TOutput output, out Status status)
    {
        status = Status.NotFound;
        fixed (byte* rec = header)
        {
            if (_store.IsExpired(rec) || (RecordLayout.IsObject(rec) && _functions.NeedsObject(ref input, RecordLayout.ObjectKind(rec)))) return false;
            status = ReadOutsideLog(rec, null, hash, ref input, ref output);
            return true;
        }
    }

    /// <summary>Runs the Reader on bytes that are not the key's record in the log (a disk read's buffer, or bytes a
    /// Prefetch kept): a touch lands on them and would be lost with them, so the read admission notes it for the key's
    /// next read from disk (ReadAdmission.NoteTouch; after a copy to the tail the note no longer applies).</summary>
    private Status ReadOutsideLog(byte* rec, object? obj, ulong hash, ref TInput input, ref TOutput output)
    {
        uint accessed = RecordLayout.AccessTime(rec);
        var rr = new RecordRef(rec, obj);
        bool found = _functions.Reader(ref rr, ref input, ref output);
        uint touched = RecordLayout.AccessTime(rec);
        if (touched != accessed) _store.Admission.NoteTouch(hash, touched);
        return found ? Status.Found : Status.NotFound;
    }

    /// <summary>An RMW answered from a remembered header when it changes nothing (NeedCopyUpdate says no, e.g. WRONGTYPE);
    /// false: go to the disk (the callbacks then run again on the record read there).</summary>
    private bool TryRmwHeader(ReadOnlySpan<byte> header, ref TInput input, ref TOutput output)
    {
        fixed (byte* rec = header)
        {
            if (_store.IsExpired(rec) || (RecordLayout.IsObject(rec) && _functions.NeedsObject(ref input, RecordLayout.ObjectKind(rec)))) return false;
            var rr = new RecordRef(rec, (object?)null);
            return !_functions.NeedCopyUpdate(ref rr, ref input, ref output, out _, out _);
        }
    }

    // Where a Prefetch found a key to have no record on disk (ChainPosition): at that position, the op that follows the
    // prefetch treats the key as absent instead of reading the disk again. A small ring: old verdicts are overwritten,
    // never trusted beyond that check.
    private readonly ChainPosition[] _absent = new ChainPosition[32];
    private int _absentNext;

    private bool KnownAbsent(ulong hash, long entry, long firstDisk)
    {
        foreach (var a in _absent)
            if (a.Is(hash, entry, firstDisk)) return true;
        return false;
    }

    private void RememberAbsent(PendingOp op)
    {
        _absent[_absentNext] = new(op.Hash, op.EntryAddress, op.FirstDiskAddress);
        _absentNext = (_absentNext + 1) % _absent.Length;
    }

    private Status PrefetchCore(ReadOnlySpan<byte> key, ulong hash, byte objectKind, bool forRead)
    {
        if (!_index.TryFind(hash, out _, out long entry)) return Status.NotFound;
        var search = _store.FindInMemory(key, entry, 0, out long address, out _);
        if (search != KVStore.Search.OnDisk) return search == KVStore.Search.NotFound ? Status.NotFound : Status.Found;
        if (forRead && _remembered is { } kept && kept.HasWhole(key, hash, entry, address)) return Status.Found; // a Read answers from the bytes
        TInput noInput = default!;
        TOutput noOutput = default!;
        return GoPending(OpKind.Prefetch, key, hash, entry, address, ref noInput, ref noOutput, null, 0, prefetchKind: objectKind, prefetchForRead: forRead);
    }

    private enum Region { Mutable, Fuzzy, Immutable }

    /// <summary>
    /// Where a record stands. Reads ReadOnlyAddress once, then SafeReadOnlyAddress: a record found Immutable can no
    /// longer change (every thread that could update it in place has finished), so its header read afterwards is final.
    /// Fuzzy: read-only already, but a thread that saw it mutable may still be updating it: wait and retry.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Region RegionOf(long address)
    {
        if (address >= _log.ReadOnlyAddress) return Region.Mutable;
        return address >= _log.SafeReadOnlyAddress ? Region.Fuzzy : Region.Immutable;
    }

    /// <summary>A callback's view of an in-memory record (with its object heap slot when it holds an object).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private RecordRef MemRef(byte* rec, long address, bool mutable) =>
        RecordLayout.IsObject(rec) ? new RecordRef(rec, mutable, _store.Objects, _log.FrameOf(address)) : new RecordRef(rec, mutable);

    /// <summary>A new object record gets a slot in its page's frame (empty until SetObject).</summary>
    private void InitObjectSlot(byte* nrec, long address)
    {
        RecordLayout.SetObjectSlot(nrec, _store.Objects.Allocate(_log.FrameOf(address)));
        RecordLayout.SetObjectDiskLocation(nrec, 0, -1);
    }

    /// <summary>Drops the object of a record nobody can read any more (replaced, deleted, or never published).</summary>
    private void ReleaseObject(byte* rec, long address)
    {
        if (RecordLayout.IsObject(rec)) _store.Objects.Release(_log.FrameOf(address), RecordLayout.ObjectSlot(rec));
    }

    /// <summary>A record that failed to publish: invisible from now on, and its object dropped.</summary>
    private void Abandon(byte* nrec, long address)
    {
        RecordInfo.SetFlags(ref RecordLayout.Info(nrec), RecordInfo.Invalid);
        ReleaseObject(nrec, address);
    }

    // ------------------------------------------------------------------------------------------------------
    // Upsert
    // ------------------------------------------------------------------------------------------------------

    /// <summary>Sets key to value (blind write). expiration: Unix ms, 0 = none. Status has Created when the key was new.</summary>
    /// <summary>Sets key to bytes. valueKind is the record's kind tag (RecordRef.ObjectKind): 0 for plain bytes, else a
    /// value the caller encodes in bytes and tells apart by the tag (the server's small collections held inline).</summary>
    public Status Upsert(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expiration = 0, byte valueKind = 0)
    {
        if (valueKind > RecordLayout.MaxKind) throw new ArgumentOutOfRangeException(nameof(valueKind), $"kind tags are 0..{RecordLayout.MaxKind}");
        _store.Epoch.Acquire();
        try { return UpsertCore(key, KeyHashOf(key), value, null, expiration, valueKind); }
        finally { _store.Epoch.Release(); }
    }

    /// <summary>Sets key to an object value (the store needs an ObjectSerializer). The store owns the object from now on.</summary>
    public Status Upsert(ReadOnlySpan<byte> key, object value, long expiration = 0)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (!_store.Objects.Enabled) throw new InvalidOperationException("the store has no object serializer");
        _store.Epoch.Acquire();
        try { return UpsertCore(key, KeyHashOf(key), default, value, expiration); }
        finally { _store.Epoch.Release(); }
    }

    private Status UpsertCore(ReadOnlySpan<byte> key, ulong hash, ReadOnlySpan<byte> value, object? obj, long expiration, byte valueKind = 0)
    {
        ushort tag = HashIndex.TagOf(hash);
        int size = RecordLayout.Size(key.Length, obj is null ? value.Length : RecordLayout.ObjectValueSize, expiration != 0);
        if (size > _log.MaxRecordSize) throw new ArgumentOutOfRangeException(nameof(value), $"a record of {size} bytes does not fit a log page ({_log.MaxRecordSize} bytes at most)");
        var waits = new AllocationWait();
        while (true)
        {
            _store.WaitWhileWritesPaused();
            var slot = _index.FindOrCreate(hash, out long entry);
            var search = _store.FindInMemory(key, entry, 0, out long address, out byte* rec);
            if (search == KVStore.Search.OnDisk && !KnownAbsent(hash, entry, address))
            {
                TInput noInput = default!; TOutput noOutput = default!;
                return GoPending(OpKind.Upsert, key, hash, entry, address, ref noInput, ref noOutput, value, expiration, obj, valueKind: valueKind);
            }
            bool existed = false, sealedOld = false;
            if (search == KVStore.Search.Found)
            {
                ref ulong info = ref RecordLayout.Info(rec);
                var region = RegionOf(address);
                ulong word = Volatile.Read(ref info);
                bool live = (word & RecordInfo.Tombstone) == 0;
                if (live && region == Region.Fuzzy) { waits.Wait(_store); continue; }
                if (live && region == Region.Mutable)
                {
                    var locked = RecordInfo.LockIfLive(ref info);
                    if (locked == RecordInfo.LockOutcome.Retry) { waits.Wait(_store); continue; }
                    if (locked == RecordInfo.LockOutcome.Locked)
                    {
                        var rr = MemRef(rec, address, true);
                        RecordLayout.Touch(rec);
                        bool layoutFits = expiration == 0 ? !rr.HasExpiration : rr.HasExpiration;
                        if (layoutFits && obj is null && rr.FitsInPlace(value.Length))
                        {
                            value.CopyTo(rr.WritableValue(value.Length));
                            RecordLayout.SetObjectKind(rec, valueKind);
                            if (expiration != 0) rr.TrySetExpiration(expiration);
                            RecordInfo.UnlockExclusive(ref info);
                            return Status.Found | Status.InPlaceUpdated;
                        }
                        if (layoutFits && obj is not null && rr.IsObject)
                        {
                            try { rr.SetObject(obj); }
                            catch
                            {
                                RecordInfo.UnlockExclusive(ref info); // e.g. the serializer's HeapSize threw
                                throw;
                            }
                            if (expiration != 0) rr.TrySetExpiration(expiration);
                            RecordInfo.UnlockExclusive(ref info);
                            _log.EnforceBudget();
                            return Status.Found | Status.InPlaceUpdated;
                        }
                        RecordInfo.UnlockExclusive(ref info, set: RecordInfo.Sealed);
                        sealedOld = true;
                        existed = true;
                    }
                }
                else existed = live;
            }

            var link = sealedOld ? LinkPastSealed(rec, address, entry, existed) : new NewLink(entry, existed ? 0 : RecordInfo.SoleVersion, false);
            // Freed space: always for a new key; for a replacement only while no iterator runs (see KeyIterator).
            if (obj is null && (!existed || _store.ActiveIterators == 0))
            {
                // A replacement goes only above the record it replaces: a scan whose cursor has not passed the old record
                // then still finds the new one (SCAN cursors are addresses).
                int reusedSize = TryTakeFree(size, expiration != 0, existed ? Math.Max(link.Previous, address) : link.Previous, out long freeAddress);
                if (reusedSize > 0)
                {
                    byte* frec = _log.GetPhysical(freeAddress);
                    RecordLayout.InitializeReused(frec, reusedSize, key, value.Length, expiration);
                    value.CopyTo(RecordLayout.Value(frec));
                    RecordLayout.SetObjectKind(frec, valueKind);
                    RecordLayout.Publish(frec, link.Previous, link.Flags);
                    if (HashIndex.TryUpdate(slot, tag, entry, freeAddress))
                    {
                        _store.CountKey(key, existed, existed && RecordLayout.HasExpiration(rec), true, expiration != 0);
                        if (sealedOld) Replaced(rec, address, link.SkipsOld);
                        return Status.Found | Status.CopyUpdated | (existed ? 0 : Status.Created);
                    }
                    RecordInfo.SetFlags(ref RecordLayout.Info(frec), RecordInfo.Invalid);
                    Retire(freeAddress, reusedSize, expiration != 0);
                    if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
                    continue;
                }
            }

            long newAddress;
            try { newAddress = _log.TryAllocate(size); }
            catch
            {
                // e.g. the device failed: the old record must not stay sealed (it would block the key for ever).
                if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
                throw;
            }
            if (newAddress == 0)
            {
                if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
                waits.Wait(_store);
                continue;
            }
            byte* nrec = _log.GetPhysical(newAddress);
            try { WriteNewValue(nrec, newAddress, link.Previous, key, value, obj, expiration, link.Flags, valueKind); }
            catch
            {
                Abandon(nrec, newAddress);
                if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
                throw;
            }
            if (HashIndex.TryUpdate(slot, tag, entry, newAddress))
            {
                _store.CountKey(key, existed, existed && RecordLayout.HasExpiration(rec), true, expiration != 0);
                if (sealedOld) Replaced(rec, address, link.SkipsOld);
                if (obj is not null) _log.EnforceBudget();
                return Status.Found | Status.CopyUpdated | (existed ? 0 : Status.Created);
            }
            Abandon(nrec, newAddress);
            if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
        }
    }

    /// <summary>Fills a new (unpublished) record with an upsert's value: bytes, or an object in a new slot.</summary>
    private void WriteNewValue(byte* nrec, long newAddress, long previous, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, object? obj, long expiration, ulong flags, byte valueKind = 0)
    {
        if (obj is null)
        {
            RecordLayout.Initialize(nrec, previous, key, value.Length, expiration, flags);
            value.CopyTo(RecordLayout.Value(nrec));
            RecordLayout.SetObjectKind(nrec, valueKind);
            return;
        }
        RecordLayout.Initialize(nrec, previous, key, RecordLayout.ObjectValueSize, expiration, RecordInfo.ObjectValue | flags);
        InitObjectSlot(nrec, newAddress);
        _store.Objects.Set(_log.FrameOf(newAddress), RecordLayout.ObjectSlot(nrec), obj);
        RecordLayout.SetObjectKind(nrec, _store.Objects.Serializer.KindOf(obj));
    }

    // ------------------------------------------------------------------------------------------------------
    // Delete
    // ------------------------------------------------------------------------------------------------------

    /// <summary>Deletes key. Found when a live, unexpired key was deleted.</summary>
    public Status Delete(ReadOnlySpan<byte> key)
    {
        _store.Epoch.Acquire();
        try { return DeleteCore(key, KeyHashOf(key), false); }
        finally { _store.Epoch.Release(); }
    }

    /// <summary>
    /// Deletes key only if its newest record has expired (decided under the record's lock, or for a record on disk by the
    /// index still pointing where the read began, so a key set again meanwhile stays). Goes to disk only with lookOnDisk
    /// (then it may be Pending); otherwise a key on disk answers NotFound. Returns NotFound|Expired when it deleted.
    /// </summary>
    public Status DeleteIfExpired(ReadOnlySpan<byte> key, bool lookOnDisk = false)
    {
        _store.Epoch.Acquire();
        try { return DeleteCore(key, KeyHashOf(key), true, lookOnDisk); }
        finally { _store.Epoch.Release(); }
    }

    private Status DeleteCore(ReadOnlySpan<byte> key, ulong hash, bool onlyIfExpired, bool lookOnDisk = true)
    {
        ushort tag = HashIndex.TagOf(hash);
        var waits = new AllocationWait();
        while (true)
        {
            _store.WaitWhileWritesPaused();
            if (!_index.TryFind(hash, out var slot, out long entry)) return Status.NotFound;
            var search = _store.FindInMemory(key, entry, 0, out long address, out byte* rec);
            if (search == KVStore.Search.NotFound || (search == KVStore.Search.OnDisk && KnownAbsent(hash, entry, address))) return Status.NotFound;
            if (search == KVStore.Search.OnDisk)
            {
                if (onlyIfExpired && !lookOnDisk) return Status.NotFound;
                // A header a prefetch remembered (a live object record on disk, still the key's newest): the tombstone
                // needs nothing more from the disk.
                var header = onlyIfExpired ? default : KnownHeader(key, hash, entry, address);
                if (!header.IsEmpty)
                    fixed (byte* known = header)
                    {
                        bool knownExpired = _store.IsExpired(known);
                        if (!AppendTombstone(key, slot, tag, entry, ref waits)) continue;
                        _store.CountKey(key, true, RecordLayout.HasExpiration(known), false, false);
                        return knownExpired ? Status.NotFound | Status.Expired : Status.Found;
                    }
                TInput noInput = default!; TOutput noOutput = default!;
                return GoPending(OpKind.Delete, key, hash, entry, address, ref noInput, ref noOutput, null, 0, onlyIfExpired: onlyIfExpired);
            }
            ref ulong info = ref RecordLayout.Info(rec);
            var region = RegionOf(address);
            if ((Volatile.Read(ref info) & RecordInfo.Tombstone) != 0) return Status.NotFound;
            if (region == Region.Fuzzy) { waits.Wait(_store); continue; }
            bool expired = _store.IsExpired(rec);
            if (onlyIfExpired && !expired) return Status.NotFound;
            var result = expired ? Status.NotFound | Status.Expired : Status.Found;
            if (region == Region.Mutable)
            {
                var locked = RecordInfo.LockIfLive(ref info);
                if (locked == RecordInfo.LockOutcome.Retry) { waits.Wait(_store); continue; }
                if (locked == RecordInfo.LockOutcome.Tombstoned) return Status.NotFound;
                if (onlyIfExpired && !_store.IsExpired(rec)) { RecordInfo.UnlockExclusive(ref info); return Status.NotFound; }
                DeleteLocked(key, slot, tag, entry, address, rec);
                return result;
            }
            if (AppendTombstone(key, slot, tag, entry, ref waits)) { _store.CountKey(key, true, RecordLayout.HasExpiration(rec), false, false); return result; }
        }
    }

    /// <summary>
    /// Deletes the live record at address, whose exclusive lock the caller holds (released here). When nothing of the key
    /// lies below and nothing newer above, the record is unlinked and its space reused; else it becomes a tombstone.
    /// </summary>
    private void DeleteLocked(ReadOnlySpan<byte> key, HashIndex.Slot slot, ushort tag, long entry, long address, byte* rec)
    {
        ref ulong info = ref RecordLayout.Info(rec);
        ReleaseObject(rec, address); // readers take the shared lock and then see the tombstone
        ulong word = Volatile.Read(ref info);
        if ((word & RecordInfo.SoleVersion) != 0 && entry == address && address >= _index.UnlinkFloor
            && HashIndex.TryUpdate(slot, tag, entry, RecordInfo.PreviousAddress(word)))
        {
            // Walkers that reached it skip it (invalid) and go on down its unchanged chain.
            RecordInfo.UnlockExclusive(ref info, set: RecordInfo.Tombstone | RecordInfo.Invalid);
            _store.CountKey(key, true, RecordLayout.HasExpiration(rec), false, false);
            if (!RecordLayout.IsObject(rec)) Retire(address, RecordLayout.TotalSize(rec), RecordLayout.HasExpiration(rec));
            return;
        }
        RecordInfo.UnlockExclusive(ref info, set: RecordInfo.Tombstone);
        _store.CountKey(key, true, RecordLayout.HasExpiration(rec), false, false);
    }

    private bool AppendTombstone(ReadOnlySpan<byte> key, HashIndex.Slot slot, ushort tag, long entry, ref AllocationWait waits)
    {
        long newAddress = _log.TryAllocate(RecordLayout.Size(key.Length, 0, false));
        if (newAddress == 0) { waits.Wait(_store); return false; }
        byte* nrec = _log.GetPhysical(newAddress);
        RecordLayout.Initialize(nrec, entry, key, 0, 0, RecordInfo.Tombstone);
        if (HashIndex.TryUpdate(slot, tag, entry, newAddress)) return true;
        RecordInfo.SetFlags(ref RecordLayout.Info(nrec), RecordInfo.Invalid);
        return false;
    }

    // ------------------------------------------------------------------------------------------------------
    // RMW
    // ------------------------------------------------------------------------------------------------------

    public Status Rmw(ReadOnlySpan<byte> key, ref TInput input, ref TOutput output)
    {
        _store.Epoch.Acquire();
        try { return RmwCore(key, KeyHashOf(key), ref input, ref output); }
        finally { _store.Epoch.Release(); }
    }

    private Status RmwCore(ReadOnlySpan<byte> key, ulong hash, ref TInput input, ref TOutput output)
    {
        ushort tag = HashIndex.TagOf(hash);
        var waits = new AllocationWait();
        while (true)
        {
            _store.WaitWhileWritesPaused();
            var slot = _index.FindOrCreate(hash, out long entry);
            var search = _store.FindInMemory(key, entry, 0, out long address, out byte* rec);
            if (search == KVStore.Search.OnDisk && !KnownAbsent(hash, entry, address))
            {
                var header = KnownHeader(key, hash, entry, address);
                if (!header.IsEmpty && TryRmwHeader(header, ref input, ref output)) return Status.Found;
                return GoPending(OpKind.Rmw, key, hash, entry, address, ref input, ref output, null, 0);
            }

            bool existed = false, sealedOld = false, copyFromOld = false;
            Status expiredFlag = 0;
            if (search == KVStore.Search.Found)
            {
                ref ulong info = ref RecordLayout.Info(rec);
                var region = RegionOf(address);
                bool live = (Volatile.Read(ref info) & RecordInfo.Tombstone) == 0;
                if (live && region == Region.Fuzzy) { waits.Wait(_store); continue; }
                if (live && region == Region.Mutable)
                {
                    var locked = RecordInfo.LockIfLive(ref info);
                    if (locked == RecordInfo.LockOutcome.Retry) { waits.Wait(_store); continue; }
                    if (locked == RecordInfo.LockOutcome.Locked)
                    {
                        existed = true;
                        UpdateAction action;
                        if (_store.IsExpired(rec)) action = UpdateAction.Expire;
                        else
                        {
                            var rr = MemRef(rec, address, true);
                            RecordLayout.Touch(rec);
                            try { action = _functions.InPlaceUpdater(ref rr, ref input, ref output); }
                            catch
                            {
                                RecordInfo.UnlockExclusive(ref info);
                                throw;
                            }
                        }
                        switch (action)
                        {
                            case UpdateAction.Done:
                                bool isObject = RecordLayout.IsObject(rec);
                                try { if (isObject) _store.Objects.Remeasure(_log.FrameOf(address), RecordLayout.ObjectSlot(rec)); }
                                finally { RecordInfo.UnlockExclusive(ref info); }
                                if (isObject) _log.EnforceBudget();
                                return Status.Found | Status.InPlaceUpdated;
                            case UpdateAction.Abort:
                                RecordInfo.UnlockExclusive(ref info);
                                return Status.Found;
                            case UpdateAction.Delete:
                                DeleteLocked(key, slot, tag, entry, address, rec);
                                return Status.Found | Status.Deleted;
                            case UpdateAction.Expire:
                                expiredFlag = Status.Expired;
                                break;
                            default:
                                copyFromOld = true;
                                break;
                        }
                        RecordInfo.UnlockExclusive(ref info, set: RecordInfo.Sealed);
                        sealedOld = true;
                    }
                }
                else if (live)
                {
                    existed = true;
                    if (_store.IsExpired(rec)) expiredFlag = Status.Expired;
                    else copyFromOld = true;
                }
            }

            Attempt outcome;
            Status status;
            var link = sealedOld ? LinkPastSealed(rec, address, entry, existed) : new NewLink(entry, existed ? 0 : RecordInfo.SoleVersion, false);
            try
            {
                var oldRef = copyFromOld ? MemRef(rec, address, false) : default;
                outcome = copyFromOld
                    ? TryCopyUpdate(key, slot, tag, entry, link, address, ref oldRef, ref input, ref output, out status)
                    : TryInitialUpdate(key, slot, tag, entry, link, existed ? address : 0, existed, existed && RecordLayout.HasExpiration(rec), ref input, ref output, out status);
            }
            catch
            {
                // A callback or the allocator failed: a sealed record must not stay sealed (it would block the key for ever).
                if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
                throw;
            }
            if (outcome == Attempt.Done)
            {
                if (sealedOld && (status & (Status.CopyUpdated | Status.Created | Status.Deleted)) == 0)
                    RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed); // nothing replaced it
                else if (sealedOld) Replaced(rec, address, link.SkipsOld);
                return status | expiredFlag;
            }
            if (sealedOld) RecordInfo.ClearFlags(ref RecordLayout.Info(rec), RecordInfo.Sealed);
            if (outcome == Attempt.NoSpace) waits.Wait(_store);
        }
    }

    private enum Attempt { Done, Conflict, NoSpace }

    private Attempt TryCopyUpdate(ReadOnlySpan<byte> key, HashIndex.Slot slot, ushort tag, long entry, NewLink link, long oldAddress, ref RecordRef old,
        ref TInput input, ref TOutput output, out Status status)
    {
        if (!_functions.NeedCopyUpdate(ref old, ref input, ref output, out int length, out long expiration))
        {
            status = Status.Found;
            return Attempt.Done;
        }
        if (length == RecordRef.DeleteRecord)
        {
            // Delete instead of copy: a tombstone in the new record's place.
            long at = _log.TryAllocate(RecordLayout.Size(key.Length, 0, false));
            if (at == 0) { status = 0; return Attempt.NoSpace; }
            byte* trec = _log.GetPhysical(at);
            RecordLayout.Initialize(trec, link.Previous, key, 0, 0, RecordInfo.Tombstone);
            if (HashIndex.TryUpdate(slot, tag, entry, at))
            {
                _store.CountKey(key, true, old.HasExpiration, false, false);
                status = Status.Found | Status.Deleted;
                return Attempt.Done;
            }
            RecordInfo.SetFlags(ref RecordLayout.Info(trec), RecordInfo.Invalid);
            status = 0;
            return Attempt.Conflict;
        }
        // Freed space only while no iterator runs (a replacement placed below an iterator's end could hide the key).
        if (!TryPlaceNew(key, link, oldAddress, length, expiration, _store.ActiveIterators == 0, out long newAddress, out byte* nrec, out int reusedSize))
        {
            status = 0;
            return Attempt.NoSpace;
        }
        var created = MemRef(nrec, newAddress, true);
        try { _functions.CopyUpdater(ref old, ref input, ref created, ref output); }
        catch
        {
            Unplace(nrec, newAddress, reusedSize, expiration);
            throw;
        }
        if (reusedSize > 0) RecordLayout.Publish(nrec, link.Previous, link.Flags);
        if (HashIndex.TryUpdate(slot, tag, entry, newAddress))
        {
            _store.CountKey(key, true, old.HasExpiration, true, expiration != 0);
            if (length == RecordRef.ObjectValue) _log.EnforceBudget();
            status = Status.Found | Status.CopyUpdated;
            return Attempt.Done;
        }
        Unplace(nrec, newAddress, reusedSize, expiration);
        status = 0;
        return Attempt.Conflict;
    }

    /// <summary>
    /// Finds room for an RMW's new record: freed space when allowed and available (reusedSize > 0: its header stays
    /// invalid until Publish), else the tail (header valid at once). False: the tail has no room yet.
    /// </summary>
    private bool TryPlaceNew(ReadOnlySpan<byte> key, NewLink link, long above, int length, long expiration, bool allowReuse,
        out long newAddress, out byte* nrec, out int reusedSize)
    {
        reusedSize = 0;
        if (allowReuse && length != RecordRef.ObjectValue)
        {
            reusedSize = TryTakeFree(RecordLayout.Size(key.Length, length, expiration != 0), expiration != 0, Math.Max(link.Previous, above), out newAddress);
            if (reusedSize > 0)
            {
                nrec = _log.GetPhysical(newAddress);
                RecordLayout.InitializeReused(nrec, reusedSize, key, length, expiration);
                return true;
            }
        }
        return TryAllocateNew(key, link.Previous, length, expiration, link.Flags, out newAddress, out nrec);
    }

    /// <summary>Allocates and initializes a new record at the tail (length RecordRef.ObjectValue: an object record). False: no space yet.</summary>
    private bool TryAllocateNew(ReadOnlySpan<byte> key, long previous, int length, long expiration, ulong flags, out long newAddress, out byte* nrec)
    {
        bool isObject = length == RecordRef.ObjectValue;
        if (isObject && !_store.Objects.Enabled) throw new InvalidOperationException("the store has no object serializer");
        if (isObject) length = RecordLayout.ObjectValueSize;
        newAddress = _log.TryAllocate(RecordLayout.Size(key.Length, length, expiration != 0));
        if (newAddress == 0) { nrec = null; return false; }
        nrec = _log.GetPhysical(newAddress);
        RecordLayout.Initialize(nrec, previous, key, length, expiration, (isObject ? RecordInfo.ObjectValue : 0) | flags);
        if (isObject) InitObjectSlot(nrec, newAddress);
        return true;
    }

    /// <summary>A placed record that will not be published: invalid, object dropped, freed space given back.</summary>
    private void Unplace(byte* nrec, long newAddress, int reusedSize, long expiration)
    {
        Abandon(nrec, newAddress);
        if (reusedSize > 0) Retire(newAddress, reusedSize, expiration != 0);
    }

    private Attempt TryInitialUpdate(ReadOnlySpan<byte> key, HashIndex.Slot slot, ushort tag, long entry, NewLink link, long oldAddress, bool existed, bool existedExpiring,
        ref TInput input, ref TOutput output, out Status status)
    {
        if (!_functions.NeedInitialUpdate(key, ref input, ref output, out int length, out long expiration))
        {
            status = Status.NotFound;
            return Attempt.Done;
        }
        // Freed space: always for a new key; for a replacement only while no iterator runs.
        if (!TryPlaceNew(key, link, oldAddress, length, expiration, !existed || _store.ActiveIterators == 0, out long newAddress, out byte* nrec, out int reusedSize))
        {
            status = 0;
            return Attempt.NoSpace;
        }
        var created = MemRef(nrec, newAddress, true);
        try { _functions.InitialUpdater(key, ref input, ref created, ref output); }
        catch
        {
            Unplace(nrec, newAddress, reusedSize, expiration);
            throw;
        }
        if (reusedSize > 0) RecordLayout.Publish(nrec, link.Previous, link.Flags);
        if (HashIndex.TryUpdate(slot, tag, entry, newAddress))
        {
            _store.CountKey(key, existed, existedExpiring, true, expiration != 0);
            if (length == RecordRef.ObjectValue) _log.EnforceBudget();
            status = Status.Created;
            return Attempt.Done;
        }
        Unplace(nrec, newAddress, reusedSize, expiration);
        status = 0;
        return Attempt.Conflict;
    }

    // ------------------------------------------------------------------------------------------------------
    // Space reuse
    // ------------------------------------------------------------------------------------------------------

    /// <summary>Where a new record links into its chain, and whether it is its key's sole version.</summary>
    private readonly record struct NewLink(long Previous, ulong Flags, bool SkipsOld);

    /// <summary>
    /// The new record that replaces a sealed one. When the sealed record heads its chain and no iterator is running,
    /// the new record links past it, so that once published the old one is unreachable and its space can be reused.
    /// (With an iterator running, the old record stays: the iterator may still need it to see the key.)
    /// </summary>
    private NewLink LinkPastSealed(byte* old, long oldAddress, long entry, bool existed)
    {
        ulong word = Volatile.Read(ref RecordLayout.Info(old));
        if (entry != oldAddress || oldAddress < _index.UnlinkFloor || _store.ActiveIterators != 0)
            return new NewLink(entry, existed ? 0 : RecordInfo.SoleVersion, false);
        bool sole = !existed || (word & RecordInfo.SoleVersion) != 0;
        return new NewLink(RecordInfo.PreviousAddress(word), sole ? RecordInfo.SoleVersion : 0, true);
    }

    /// <summary>A sealed record's replacement was published: when it was unlinked, drop its object and reuse its space.</summary>
    private void Replaced(byte* old, long oldAddress, bool unlinked)
    {
        // Still linked: an iterator may yet yield it (it is its key's newest record below the iterator's end), so its
        // object stays until the page is evicted.
        if (!unlinked) return;
        ReleaseObject(old, oldAddress);
        RecordInfo.SetFlags(ref RecordLayout.Info(old), RecordInfo.Invalid);
        if (!RecordLayout.IsObject(old)) Retire(oldAddress, RecordLayout.TotalSize(old), RecordLayout.HasExpiration(old));
    }

    /// <summary>A free record for a new key's record of this size, above the chain's head; 0 when there is none.</summary>
    private int TryTakeFree(int size, bool hasExpiration, long chainHead, out long address)
    {
        // While an iterator runs, nothing goes below its end: a key deleted and created again in reused space above its
        // cursor would be yielded twice.
        if (_store.ActiveIterators != 0) { address = 0; return 0; }
        return _store.FreeRecords.TryTake(size, hasExpiration, chainHead, _log.ReadOnlyAddress, out address);
    }

    /// <summary>
    /// An unlinked (invalid) record: once every thread that might still read it has moved on, its space goes to the
    /// free pool. Batched so that one epoch action covers many records.
    /// </summary>
    private void Retire(long address, int size, bool hasExpiration)
    {
        if (!FreeRecordPool.Eligible(size)) return;
        _retired[_retiredCount++] = FreeRecordPool.Pack(address, size, hasExpiration);
        if (_retiredCount == RetireBatch) FlushRetired();
    }

    private void FlushRetired()
    {
        if (_retiredCount == 0) return;
        var batch = _retired;
        int count = _retiredCount;
        var pool = _store.FreeRecords;
        _retired = new long[RetireBatch];
        _retiredCount = 0;
        _store.Epoch.BumpCurrentEpoch(() => pool.Add(batch, count));
    }

    // ------------------------------------------------------------------------------------------------------
    // Pending operations (disk)
    // ------------------------------------------------------------------------------------------------------

    private Status GoPending(OpKind kind, ReadOnlySpan<byte> key, ulong hash, long entry, long diskAddress,
        ref TInput input, ref TOutput output, ReadOnlySpan<byte> value, long expiration, object? obj = null, bool onlyIfExpired = false, byte prefetchKind = 0, byte valueKind = 0, bool prefetchForRead = false)
    {
        var op = _rearm;
        if (op is null)
        {
            op = _freeOps.Count > 0 ? _freeOps.Pop() : new PendingOp(this);
            op.Kind = kind;
            op.SetKey(key);
            op.Value = kind == OpKind.Upsert && obj is null ? value.ToArray() : null;
            op.ValueObject = obj;
            op.ValueKind = valueKind;
            op.Expiration = expiration;
            op.OnlyIfExpired = onlyIfExpired; // a restart re-arms the same op: the flag stays
            op.PrefetchKind = prefetchKind;
            op.PrefetchForRead = prefetchForRead;
            op.Hash = hash;
            op.Error = null;
            op.Input = input;
            op.Output = output;
            _pending.Enqueue(op);
        }
        else _rearm = null;
        op.EntryAddress = entry;
        op.FirstDiskAddress = diskAddress;
        op.DiskAddress = diskAddress;
        IssueRead(op);
        return Status.Pending;
    }

    private void IssueRead(PendingOp op)
    {
        op.RecordLength = 0;
        op.Object = null;
        op.ObjectLoaded = false;
        op.WholeRecordRead = false;
        int ticket = op.Begin();
        try { _log.Device.StartRead(op.DiskAddress, StoreIo.FirstReadLength(_log, op.DiskAddress), op); }
        catch (Exception ex)
        {
            // Not started (a segment that cannot be opened, the readers disposed): the op completes with the failure, so
            // CompletePending reports it instead of waiting for a read that never comes.
            EndRead(op, ticket, ex);
        }
    }

    /// <summary>Injection points inside the store's completion of an op's read: the record (the object) is in, the op not
    /// yet ended.</summary>
    internal const string ContinuationFault = "disk-read-continuation", ObjectContinuationFault = "object-read-continuation";

    /// <summary>On the reader's thread (short, never blocking): the first read covered the rest of the record's 4 KB
    /// block, which mostly holds the whole record; a longer record is read again whole. Then the op is done. Whatever
    /// throws here ends the read as failed (PendingRead): the op's request gets an error, never no reply.</summary>
    private void OnRecordRead(PendingOp op, int bytes, Exception? error)
    {
        int ticket = op.Ticket;
        try
        {
            if (error is null && bytes > 0)
            {
                // Bytes past the end of the file read as zeros (no record there).
                if (bytes < op.Wanted) new Span<byte>(op.Data + bytes, op.Wanted - bytes).Clear();
                bytes = op.Wanted;
                if (!op.WholeRecordRead)
                {
                    int total = KVStore.RecordSizeOf(op.Data, bytes);
                    int untilPageEnd = _log.PageSize - (int)(op.DiskAddress & (_log.PageSize - 1));
                    if (total > bytes && total <= untilPageEnd)
                    {
                        // The same read goes on (same ticket); its completion ends it. If StartRead throws, it did not
                        // start: the catch below ends the read.
                        op.WholeRecordRead = true;
                        _log.Device.StartRead(op.DiskAddress, total, op);
                        return;
                    }
                }
            }
            Util.StorageFaults.Hit(ContinuationFault);
            if (!op.TryEnd(ticket)) return;
            op.RecordLength = error is null ? bytes : 0;
            op.Error = error;
            MarkDone(op);
        }
        catch (Exception ex) { FailRead(op, ticket, ex); }
    }

    /// <summary>The record found on disk holds an object: read its bytes from the object log and deserialize them.</summary>
    private void IssueObjectRead(PendingOp op, long address, int length)
    {
        op.Begin();
        op.OnObject ??= OnObjectOf(op);
        StoreIo.ReadObject(_store, address, length, op.OnObject);
    }

    /// <summary>The completion of an op's object read (any thread); contained as OnRecordRead's.</summary>
    private Action<object?, Exception?> OnObjectOf(PendingOp op) => (value, error) =>
    {
        int ticket = op.Ticket;
        try
        {
            Util.StorageFaults.Hit(ObjectContinuationFault);
            if (!op.TryEnd(ticket)) return;
            op.Object = value;
            op.ObjectLoaded = error is null;
            op.Error = error;
            MarkDone(op);
        }
        catch (Exception ex) { FailRead(op, ticket, ex); }
    };

    /// <summary>Ends the read of ticket with error (no record), unless it has ended already.</summary>
    private void EndRead(PendingOp op, int ticket, Exception error)
    {
        if (!op.TryEnd(ticket)) return;
        op.RecordLength = 0;
        op.Object = null;
        op.ObjectLoaded = false;
        op.Error = error;
        MarkDone(op);
    }

    /// <summary>A read's completion threw: logged, and the read ends as failed unless the completion had ended it.</summary>
    private void FailRead(PendingOp op, int ticket, Exception ex)
    {
        Util.StorageFaults.Report("a disk read's completion (its operation fails)", ex);
        EndRead(op, ticket, ex);
    }

    /// <summary>After a winning TryEnd and the outcome: the op is done; its session's waiter is woken. Throws nothing.</summary>
    private void MarkDone(PendingOp op)
    {
        op.ReadDone = true;
        _ioSignal.Set();
    }

    /// <summary>Ops kept for reuse keep a read buffer of at most this many bytes.</summary>
    private const int KeptReadBuffer = 64 << 10;

    /// <summary>An op is finished: keep the object (and a read buffer of usual size) for the next pending op.</summary>
    private void Recycle(PendingOp op)
    {
        op.RecordLength = 0;
        op.ClearKey();
        op.Value = null;
        op.ValueObject = null;
        op.ValueKind = 0;
        op.OnlyIfExpired = false;
        op.PrefetchKind = 0;
        op.Object = null;
        op.ObjectLoaded = false;
        op.Input = default!;
        op.Output = default!;
        if (_freeOps.Count < 64)
        {
            if (op.Capacity > KeptReadBuffer) op.FreeBuffer();
            _freeOps.Push(op);
        }
        else op.FreeBuffer();
    }

    /// <summary>Gives back the read buffers of the ops kept for reuse (the connection went idle; the next read takes one).</summary>
    public void ReleaseIdleBuffers()
    {
        foreach (var op in _freeOps) op.FreeBuffer();
    }

    /// <summary>
    /// Runs continuations of pending operations whose disk reads finished, in issue order. With wait, returns only
    /// when none is left (or the timeout passes: false).
    /// </summary>
    public bool CompletePending(bool wait = false, TimeSpan? timeout = null)
    {
        long deadline = Environment.TickCount64 + (long)(timeout ?? TimeSpan.FromMinutes(1)).TotalMilliseconds;
        while (_pending.Count > 0)
        {
            var op = _pending.Peek();
            if (!op.ReadDone)
            {
                if (!wait) return false;
                if (Environment.TickCount64 > deadline) return false;
                // On a loop thread whose ring holds reads, only this thread completes them: wait on the ring itself.
                if (Devices.LoopReadRing.Current?.Pump() != true) _ioSignal.Wait(10);
                continue;
            }
            _store.Epoch.Acquire();
            bool done;
            try { done = Continue(op); }
            catch
            {
                // A device error or a throwing completion callback ends this op (it is never retried or re-applied);
                // the rest of the queue stays usable.
                Recycle(_pending.Dequeue());
                throw;
            }
            finally { _store.Epoch.Release(); }
            if (done) Recycle(_pending.Dequeue());
        }
        return true;
    }

    /// <summary>
    /// Completes what it can now: true when nothing is left pending. Otherwise false, and whenReady runs once another
    /// read has finished, inline on that read's thread (it must be short and never block: e.g. post the caller back to
    /// its own loop), after which the caller calls this again, on its own thread. Allocates nothing.
    /// </summary>
    public bool TryCompletePending(Action whenReady)
    {
        while (true)
        {
            if (CompletePending(wait: false)) return true;
            if (_ioSignal.WhenSet(whenReady)) return false;
        }
    }

    /// <summary>Awaits (without blocking a thread) until every pending operation has completed.</summary>
    public Task CompletePendingAsync() =>
        _pending.Count == 0 ? Task.CompletedTask : StoreIo.CompleteAsync(_tryCompletePending ??= () => CompletePending(wait: false), _ioSignal);

    private Func<bool>? _tryCompletePending;

    /// <summary>Handles a finished read. False when the operation went back to the disk (it stays first in line).</summary>
    private bool Continue(PendingOp op)
    {
        if (op.Error is not null)
        {
            // A read below BeginAddress raced with the deletion of its segment: the chain ends there.
            if (op.DiskAddress < _log.BeginAddress) { op.Error = null; op.RecordLength = 0; op.Object = null; op.ObjectLoaded = false; }
            else throw new IOException("reading a record from the log device failed", op.Error);
        }
        bool found = false;
        byte* rec = op.Data; // the op's own buffer: stays put until its next read
        {
            int size = KVStore.RecordSizeOf(rec, op.RecordLength);
            bool valid = size >= RecordLayout.HeaderSize && size <= op.RecordLength;
            if (valid)
            {
                ulong info = RecordInfo.Persistent(*(ulong*)rec);
                if ((info & RecordInfo.Invalid) == 0 && RecordLayout.Key(rec).SequenceEqual(op.Key))
                {
                    found = true;
                    bool needsObject = (info & (RecordInfo.ObjectValue | RecordInfo.Tombstone)) == RecordInfo.ObjectValue
                        && NeedsObject(op, RecordLayout.ObjectKind(rec));
                    if (needsObject && !op.ObjectLoaded)
                    {
                        int length = RecordLayout.ObjectDiskLength(rec);
                        if (length < 0) throw new IOException($"object record at {op.DiskAddress} was flushed without its object");
                        IssueObjectRead(op, RecordLayout.ObjectDiskAddress(rec), length);
                        return false;
                    }
                }
                else
                {
                    long prev = RecordInfo.PreviousAddress(info);
                    if (prev >= _log.BeginAddress && prev != 0)
                    {
                        op.DiskAddress = prev;
                        IssueRead(op);
                        return false;
                    }
                }
            }
            if (!ChainUnchanged(op, out var slot)) return Restart(op);
            if (op.Kind is not (OpKind.Read or OpKind.Prefetch) && _store.WritesPaused) return Restart(op); // the restart waits for the snapshot
            return Finish(op, slot, found ? rec : null);
        }
    }

    /// <summary>Whether op needs the object of the object record it found on disk (kind: the record's tag, 0 = unknown).
    /// Upserts and deletes never do; a prefetch does unless it asked for another kind; reads and RMWs ask the callbacks.</summary>
    private bool NeedsObject(PendingOp op, byte kind) => op.Kind switch
    {
        OpKind.Upsert or OpKind.Delete => false,
        OpKind.Prefetch => kind == 0 || op.PrefetchKind == 0 || op.PrefetchKind == kind,
        _ => kind == 0 || _functions.NeedsObject(ref op.Input, kind),
    };

    /// <summary>
    /// The index must still point where the op's search began and the chain must still leave memory at the same place
    /// (reused space can bring an entry address back); otherwise something newer may exist and the op starts over.
    /// Checked again after every wait, which refreshes the epoch.
    /// </summary>
    private bool ChainUnchanged(PendingOp op, out HashIndex.Slot slot)
    {
        if (!_index.TryFind(op.Hash, out slot, out long current) || current != op.EntryAddress || !slot.IsValid) return false;
        return _store.FindInMemory(op.Key, current, 0, out long leaves, out _) == KVStore.Search.OnDisk && leaves == op.FirstDiskAddress;
    }

    private bool Restart(PendingOp op)
    {
        _rearm = op;
        Status status;
        try
        {
            switch (op.Kind)
            {
                case OpKind.Read: status = ReadCore(op.Key, op.Hash, ref op.Input, ref op.Output); break;
                case OpKind.Upsert: status = UpsertCore(op.Key, op.Hash, op.Value, op.ValueObject, op.Expiration, op.ValueKind); break;
                case OpKind.Delete: status = DeleteCore(op.Key, op.Hash, op.OnlyIfExpired); break;
                case OpKind.Prefetch: status = PrefetchCore(op.Key, op.Hash, op.PrefetchKind, op.PrefetchForRead); break;
                default: status = RmwCore(op.Key, op.Hash, ref op.Input, ref op.Output); break;
            }
        }
        finally { _rearm = null; } // GoPending consumed it if the op went back to disk
        if (status.IsPending()) return false; // re-armed in place
        Report(op, status);
        return true;
    }

    private void Report(PendingOp op, Status status)
    {
        switch (op.Kind)
        {
            case OpKind.Read: _functions.ReadCompleted(op.Key, ref op.Input, ref op.Output, status); break;
            case OpKind.Rmw: _functions.RmwCompleted(op.Key, ref op.Input, ref op.Output, status); break;
            case OpKind.Prefetch: break; // nobody waits for a result
            default: _functions.WriteCompleted(op.Key, status); break;
        }
    }

    /// <summary>Completes op against the record read from disk (null: the key has no record). False if it must restart.</summary>
    private bool Finish(PendingOp op, HashIndex.Slot slot, byte* diskRecord)
    {
        ushort tag = HashIndex.TagOf(op.Hash);
        long entry = op.EntryAddress;
        bool live = diskRecord != null && (RecordInfo.Persistent(*(ulong*)diskRecord) & RecordInfo.Tombstone) == 0;
        bool expired = live && _store.IsExpired(diskRecord);
        var waits = new AllocationWait();
        switch (op.Kind)
        {
            case OpKind.Read:
            {
                Status status = Status.NotFound;
                if (live && !expired)
                {
                    // The admission decides before the Reader runs, so that a touch of a record left on disk is noted
                    // under the key's fresh mark (an admitted record's copy carries the touch itself).
                    _store.Admission.ApplyTouch(op.Hash, diskRecord);
                    bool admitted = _store.Settings.CopyReadsFromDiskToTail && _store.Admission.AdmitAfterMiss(op.Hash);
                    status = ReadOutsideLog(diskRecord, op.Object, op.Hash, ref op.Input, ref op.Output);
                    if (admitted) CopyToTail(slot, tag, entry, diskRecord, op.Object);
                }
                else if (expired) status = Status.NotFound | Status.Expired;
                Report(op, status);
                return true;
            }
            case OpKind.Prefetch:
                if (live && !expired && op.Object is null && RecordLayout.IsObject(diskRecord)) RememberHeader(op, diskRecord);
                else if (live && !expired && _store.Settings.CopyReadsFromDiskToTail)
                {
                    _store.Admission.ApplyTouch(op.Hash, diskRecord); // a read that touched its kept-out copy before
                    // A key read once stays out of memory: its bytes wait here for the Read that follows.
                    bool keptOut = op.PrefetchForRead && !RecordLayout.IsObject(diskRecord) && !_store.Admission.AdmitAfterMiss(op.Hash)
                        && (_remembered ??= new()).TryKeepWhole(op.Hash, entry, op.FirstDiskAddress, diskRecord);
                    if (!keptOut) CopyToTail(slot, tag, entry, diskRecord, op.Object);
                }
                else if (diskRecord == null) RememberAbsent(op);
                return true;
            case OpKind.Upsert:
            {
                var obj = op.ValueObject;
                int size = RecordLayout.Size(op.Key.Length, obj is null ? op.Value!.Length : RecordLayout.ObjectValueSize, op.Expiration != 0);
                long newAddress;
                while ((newAddress = _log.TryAllocate(size)) == 0)
                {
                    // The wait refreshes the epoch: look the slot up again (the index may have grown) and check nothing changed.
                    waits.Wait(_store);
                    if (!ChainUnchanged(op, out slot)) return Restart(op);
                }
                byte* nrec = _log.GetPhysical(newAddress);
                try { WriteNewValue(nrec, newAddress, entry, op.Key, op.Value, obj, op.Expiration, live ? 0 : RecordInfo.SoleVersion, op.ValueKind); }
                catch
                {
                    Abandon(nrec, newAddress);
                    throw;
                }
                if (!HashIndex.TryUpdate(slot, tag, entry, newAddress))
                {
                    Abandon(nrec, newAddress);
                    return Restart(op);
                }
                if (obj is not null) _log.EnforceBudget();
                _store.CountKey(op.Key, live, live && RecordLayout.HasExpiration(diskRecord), true, op.Expiration != 0);
                Report(op, Status.Found | Status.CopyUpdated | (live ? 0 : Status.Created));
                return true;
            }
            case OpKind.Delete:
            {
                if (!live || (op.OnlyIfExpired && !expired)) { Report(op, Status.NotFound); return true; }
                while (true)
                {
                    if (AppendTombstone(op.Key, slot, tag, entry, ref waits)) break;
                    if (!ChainUnchanged(op, out slot)) return Restart(op);
                }
                _store.CountKey(op.Key, true, RecordLayout.HasExpiration(diskRecord), false, false);
                Report(op, expired ? Status.NotFound | Status.Expired : Status.Found);
                return true;
            }
            default:
            {
                while (true)
                {
                    Attempt outcome;
                    Status status;
                    var oldRef = new RecordRef(diskRecord, op.Object);
                    if (live && !expired) outcome = TryCopyUpdate(op.Key, slot, tag, entry, new NewLink(entry, 0, false), op.DiskAddress, ref oldRef, ref op.Input, ref op.Output, out status);
                    else outcome = TryInitialUpdate(op.Key, slot, tag, entry, new NewLink(entry, live ? 0 : RecordInfo.SoleVersion, false), live ? op.DiskAddress : 0, live, live && RecordLayout.HasExpiration(diskRecord), ref op.Input, ref op.Output, out status);
                    if (outcome == Attempt.Done)
                    {
                        Report(op, status | (expired ? Status.Expired : 0));
                        return true;
                    }
                    if (outcome == Attempt.Conflict) return Restart(op);
                    waits.Wait(_store);
                    if (!ChainUnchanged(op, out slot)) return Restart(op);
                }
            }
        }
    }

    /// <summary>Second chance: copies a record read from disk to the tail (best effort: skipped if anything changed).</summary>
    private void CopyToTail(HashIndex.Slot slot, ushort tag, long entry, byte* diskRecord, object? obj)
    {
        if (_log.DeviceFailing) return; // pages cannot leave memory now: keep what is left for writes after recovery
        if (obj is null && RecordLayout.IsObject(diskRecord)) return; // read without its object (NeedsObject): nothing to own
        int size = RecordLayout.TotalSize(diskRecord);
        long newAddress = _log.TryAllocate(size);
        if (newAddress == 0) return;
        byte* nrec = _log.GetPhysical(newAddress);
        Buffer.MemoryCopy(diskRecord, nrec, size, size);
        ulong info = RecordInfo.Persistent(*(ulong*)diskRecord);
        // The copy sits above the original, so it is not its key's sole version.
        *(ulong*)nrec = (info & ~RecordInfo.AddressMask & ~(RecordInfo.Sealed | RecordInfo.SoleVersion)) | ((ulong)entry & RecordInfo.AddressMask);
        if (RecordLayout.IsObject(nrec))
        {
            // The object read from disk now belongs to the copy (the reader only looked at it).
            InitObjectSlot(nrec, newAddress);
            try
            {
                _store.Objects.Set(_log.FrameOf(newAddress), RecordLayout.ObjectSlot(nrec), obj);
                RecordLayout.SetObjectKind(nrec, _store.Objects.Serializer.KindOf(obj!)); // also tags a record written untagged
            }
            catch
            {
                Abandon(nrec, newAddress);
                throw;
            }
        }
        if (!HashIndex.TryUpdate(slot, tag, entry, newAddress)) Abandon(nrec, newAddress);
        else if (obj is not null) _log.EnforceBudget();
    }

    public void Dispose()
    {
        CompletePending(wait: true, TimeSpan.FromSeconds(30));
        FlushRetired();
        ReleaseIdleBuffers();
    }

    /// <summary>Waiting for the log to free a page: refresh the epoch (lets flush/evict actions run), back off, give up after a minute.</summary>
    private struct AllocationWait
    {
        private int _spins;
        private long _deadline;

        public void Wait(KVStore store)
        {
            if (_deadline == 0) _deadline = Environment.TickCount64 + 60_000;
            store.Epoch.Refresh();
            if (++_spins > 20) Thread.Sleep(_spins > 200 ? 1 : 0);
            else Thread.SpinWait(32);
            // No page can leave memory while the device fails: give up soon rather than hold the caller for a minute.
            if (_spins > 1000 && store.Log.FlushError is { } failure) throw new LogDeviceException(failure);
            if (Environment.TickCount64 > _deadline) throw new TimeoutException("the log waited a minute for a page to be flushed");
        }
    }
}
