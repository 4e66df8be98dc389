// Callbacks for the storage benchmarks: 8-byte values read into a long, RMW adds to a little-endian counter.
// Nothing here allocates, so the memory diagnoser shows what the engine itself allocates.
using System.Buffers.Binary;
using Garnet.storage.Store;

namespace BDN.benchmark.Storage;

public struct CounterFunctions : IStoreFunctions<long, long>
{
    public bool Reader(ref RecordRef record, ref long input, ref long output)
    {
        output = BinaryPrimitives.ReadInt64LittleEndian(record.Value);
        return true;
    }

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref long input, ref long output, out int valueLength, out long expiration)
    {
        valueLength = 8;
        expiration = 0;
        return true;
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref long input, ref RecordRef newRecord, ref long output)
    {
        BinaryPrimitives.WriteInt64LittleEndian(newRecord.ValueSpan, input);
        output = input;
    }

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref long input, ref long output)
    {
        var v = record.WritableValue(8);
        output = BinaryPrimitives.ReadInt64LittleEndian(v) + input;
        BinaryPrimitives.WriteInt64LittleEndian(v, output);
        return UpdateAction.Done;
    }

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref long input, ref long output, out int valueLength, out long expiration)
    {
        valueLength = 8;
        expiration = 0;
        return true;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref long input, ref RecordRef newRecord, ref long output)
    {
        output = BinaryPrimitives.ReadInt64LittleEndian(oldRecord.Value) + input;
        BinaryPrimitives.WriteInt64LittleEndian(newRecord.ValueSpan, output);
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref long input, ref long output, Status status) { }
    public void RmwCompleted(ReadOnlySpan<byte> key, ref long input, ref long output, Status status) { }
    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) { }
}
