// ReadAdmission: which records a read brings back into memory. A record read from disk is copied to the tail only on
// its key's second miss within a while (a "ghost" table remembers hashes of keys missed once), so keys read once do not
// push hot ones out of the in-memory log; a record still in memory but in the oldest quarter of it (about to leave) is
// copied to the tail when read, so a key read often never leaves (together an approximation of LRU over a FIFO log).
// Invariants:
//  - The table only decides whether to copy; a wrong answer (a collision, a race between threads) costs a disk read
//    or a needless copy, never correctness. Racy plain reads and writes are therefore fine.
//  - Size: a power of two of 4-byte slots, about one per 512 bytes of the memory budget (4096 to 1M slots).
namespace Garnet.storage.Store;

internal sealed class ReadAdmission
{
    private readonly uint[] _ghosts;
    private readonly int _mask;

    public ReadAdmission(long memoryBytes)
    {
        long want = Math.Clamp(memoryBytes / 512, 4096, 1 << 20);
        int size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)want);
        _ghosts = new uint[size];
        _mask = size - 1;
    }

    /// <summary>Bytes the table takes.</summary>
    public long MemoryBytes => _ghosts.Length * 4L;

    /// <summary>A read found key (by hash) on disk: true if it was missed recently too, so its record should come back.</summary>
    public bool AdmitAfterMiss(ulong hash)
    {
        int i = (int)hash & _mask;
        uint mark = (uint)(hash >> 32) | 1; // never 0, the empty slot
        if (_ghosts[i] == mark) { _ghosts[i] = 0; return true; }
        _ghosts[i] = mark;
        return false;
    }

    /// <summary>A read found a record in memory at address: true if it is in the oldest quarter, soon to leave.</summary>
    public static bool NearHead(long address, long head, long tail) => address < head + ((tail - head) >> 2);
}
