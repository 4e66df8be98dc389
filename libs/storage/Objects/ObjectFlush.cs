// ObjectFlush: before a page is written, every object of its live object records is serialized into one buffer,
// appended to the object log, and the record is told where its bytes went (address and length in its value).
// The page is immutable here (below SafeReadOnlyAddress) and cannot be evicted before its flush completes.
using System.Buffers;
using Garnet.storage.Log;
using Garnet.storage.Store;

namespace Garnet.storage.Objects;

internal static class ObjectFlush
{
    public static async ValueTask SerializePageAsync(KVStore store, long page)
    {
        var writer = new ArrayBufferWriter<byte>();
        var placed = ObjectFlushScan.Serialize(store, page, writer);
        if (placed.Count == 0) return;
        var objectLog = store.ObjectLog!;
        long at = store.AllocateObjectLog(page, writer.WrittenCount);
        ObjectFlushScan.Locate(store, placed, at);
        await objectLog.WriteAsync(at, writer.WrittenMemory).ConfigureAwait(false);
    }
}

internal static unsafe class ObjectFlushScan
{
    /// <summary>Serializes the page's objects; returns (record address, offset in writer, length) for each.</summary>
    public static List<(long address, int offset, int length)> Serialize(KVStore store, long page, ArrayBufferWriter<byte> writer)
    {
        var log = store.Log;
        var placed = new List<(long, int, int)>();
        var scratch = new ArrayBufferWriter<byte>();
        long address = Math.Max(log.PageStart(page), HybridLog.FirstValidAddress);
        long end = log.PageStart(page + 1);
        int frame = log.FrameOf(log.PageStart(page));
        while (end - address >= RecordLayout.HeaderSize)
        {
            byte* r = log.GetPhysical(address);
            if (!RecordLayout.IsPresent(r)) break;
            int size = RecordLayout.TotalSize(r);
            ulong info = Volatile.Read(ref RecordLayout.Info(r));
            if ((info & (RecordInfo.ObjectValue | RecordInfo.Invalid)) == RecordInfo.ObjectValue)
            {
                object? value = (info & RecordInfo.Tombstone) == 0 ? store.Objects.Get(frame, RecordLayout.ObjectSlot(r)) : null;
                if (value is null) RecordLayout.SetObjectDiskLocation(r, 0, -1);
                else
                {
                    // Into a scratch buffer first: a serializer that throws loses only its own object (the record then
                    // reads back as "flushed without its object"), not the page's flush and with it the whole log.
                    scratch.ResetWrittenCount();
                    try { store.Objects.Serializer.Serialize(value, scratch); }
                    catch
                    {
                        store.Objects.NoteSerializeFailure();
                        RecordLayout.SetObjectDiskLocation(r, 0, -1);
                        address += size;
                        continue;
                    }
                    int start = writer.WrittenCount;
                    writer.Write(scratch.WrittenSpan);
                    placed.Add((address, start, scratch.WrittenCount));
                }
            }
            address += size;
        }
        return placed;
    }

    public static void Locate(KVStore store, List<(long address, int offset, int length)> placed, long baseAddress)
    {
        foreach (var (address, offset, length) in placed)
            RecordLayout.SetObjectDiskLocation(store.Log.GetPhysical(address), baseAddress + offset, length);
    }
}
