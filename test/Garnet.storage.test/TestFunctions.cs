using System.Buffers.Binary;
using Garnet.storage.Store;

namespace Garnet.storage.test;

/// <summary>Input of the test callbacks: RMW adds Delta to an 8-byte counter; Grow makes the value that many bytes.</summary>
public struct TestInput
{
    public long Delta;
    public int Grow;
    public long Expiration;
}

public struct TestOutput
{
    public byte[]? Value;
    public long Number;
}

/// <summary>Collects completions of pending operations, in the order the session reports them.</summary>
public sealed class CompletionLog
{
    public readonly List<(string kind, string key, Status status, TestOutput output)> Items = new();
}

/// <summary>Byte values; RMW treats the first 8 bytes as a little-endian counter.</summary>
public struct TestFunctions(CompletionLog? log) : IStoreFunctions<TestInput, TestOutput>
{
    public bool Reader(ref RecordRef record, ref TestInput input, ref TestOutput output)
    {
        output.Value = record.Value.ToArray();
        output.Number = record.ValueLength >= 8 ? BinaryPrimitives.ReadInt64LittleEndian(record.Value) : 0;
        return true;
    }

    public bool NeedInitialUpdate(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration)
    {
        valueLength = Math.Max(8, input.Grow);
        expiration = input.Expiration;
        return true;
    }

    public void InitialUpdater(ReadOnlySpan<byte> key, ref TestInput input, ref RecordRef newRecord, ref TestOutput output)
    {
        var value = newRecord.ValueSpan;
        value.Clear();
        BinaryPrimitives.WriteInt64LittleEndian(value, input.Delta);
        output.Number = input.Delta;
    }

    public UpdateAction InPlaceUpdater(ref RecordRef record, ref TestInput input, ref TestOutput output)
    {
        int length = Math.Max(record.ValueLength, input.Grow);
        if (!record.FitsInPlace(length)) return UpdateAction.NeedCopy;
        var v = record.WritableValue(length);
        long n = BinaryPrimitives.ReadInt64LittleEndian(v) + input.Delta;
        BinaryPrimitives.WriteInt64LittleEndian(v, n);
        output.Number = n;
        return UpdateAction.Done;
    }

    public bool NeedCopyUpdate(ref RecordRef oldRecord, ref TestInput input, ref TestOutput output, out int valueLength, out long expiration)
    {
        valueLength = Math.Max(oldRecord.ValueLength, Math.Max(8, input.Grow));
        expiration = oldRecord.Expiration;
        return true;
    }

    public void CopyUpdater(ref RecordRef oldRecord, ref TestInput input, ref RecordRef newRecord, ref TestOutput output)
    {
        var newValue = newRecord.ValueSpan;
        newValue.Clear();
        oldRecord.Value.CopyTo(newValue);
        long n = BinaryPrimitives.ReadInt64LittleEndian(newValue) + input.Delta;
        BinaryPrimitives.WriteInt64LittleEndian(newValue, n);
        output.Number = n;
    }

    public void ReadCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status) =>
        log?.Items.Add(("read", System.Text.Encoding.ASCII.GetString(key), status, output));

    public void RmwCompleted(ReadOnlySpan<byte> key, ref TestInput input, ref TestOutput output, Status status) =>
        log?.Items.Add(("rmw", System.Text.Encoding.ASCII.GetString(key), status, output));

    public void WriteCompleted(ReadOnlySpan<byte> key, Status status) =>
        log?.Items.Add(("write", System.Text.Encoding.ASCII.GetString(key), status, default));
}
