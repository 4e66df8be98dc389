// ReadAdmission: which records a read brings back into memory. A record read from disk is copied to the tail only on
// its key's second miss within a while (a "ghost" table remembers hashes of keys missed once), so keys read once do not
// push hot ones out of the in-memory log; a record still in memory but in the oldest quarter of it (about to leave) is
// copied to the tail when read, so a key read often never leaves (together an approximation of LRU over a FIFO log).
// Invariants:
//  - The table only decides whether to copy; a wrong answer (a collision, a race between threads) costs a disk read
//    or a needless copy, never correctness. Racy plain reads and writes are therefore fine.
//  - Size: a power of two of 4-byte slots, about one per 512 bytes of the memory budget (4096 to 1M slots), and as many
//    4-byte touch times: a read that touched a record kept out of memory (RememberedRecords) notes the time beside the
//    key's mark, and the key's next read from disk carries it (ApplyTouch), so OBJECT IDLETIME counts from that read.
namespace Garnet.storage.Store;

internal sealed class ReadAdmission
{
    private readonly uint[] _ghosts;
    private readonly uint[] _touched; // by slot: access time (Unix seconds) of a touching read of the ghost's key, or 0
    private readonly int _mask;

    public ReadAdmission(long memoryBytes)
    {
        long want = Math.Clamp(memoryBytes / 512, 4096, 1 << 20);
        int size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)want);
        _ghosts = new uint[size];
        _touched = new uint[size];
        _mask = size - 1;
    }

    /// <summary>Bytes the table takes.</summary>
    public long MemoryBytes => _ghosts.Length * 8L;

    /// <summary>A read found key (by hash) on disk: true if it was missed recently too, so its record should come back.</summary>
    public bool AdmitAfterMiss(ulong hash)
    {
        int i = (int)hash & _mask;
        uint mark = MarkOf(hash);
        if (_ghosts[i] == mark) { _ghosts[i] = 0; return true; }
        _ghosts[i] = mark;
        _touched[i] = 0;
        return false;
    }

    /// <summary>A read touched the kept-out record of key (by hash) at unixSeconds: noted while the key's mark stays.</summary>
    public void NoteTouch(ulong hash, uint unixSeconds)
    {
        int i = (int)hash & _mask;
        if (_ghosts[i] == MarkOf(hash)) _touched[i] = unixSeconds;
    }

    /// <summary>A record of key (by hash) was read from disk, before AdmitAfterMiss: if a read touched the key's kept-out
    /// copy since its last miss, the record takes that access time.</summary>
    public unsafe void ApplyTouch(ulong hash, byte* record)
    {
        int i = (int)hash & _mask;
        uint touched = _touched[i];
        if (touched != 0 && _ghosts[i] == MarkOf(hash) && touched > Garnet.storage.Log.RecordLayout.AccessTime(record))
            Garnet.storage.Log.RecordLayout.SetAccessTime(record, touched);
    }

    /// <summary>What a slot holds for key (by hash): never 0, the empty slot.</summary>
    private static uint MarkOf(ulong hash) => (uint)(hash >> 32) | 1;

    /// <summary>A read found a record in memory at address: true if it is in the oldest quarter, soon to leave.</summary>
    public static bool NearHead(long address, long head, long tail) => address < head + ((tail - head) >> 2);
}
