// Batch: a pre-built run of encoded commands, sent as one write, and the batch builder that makes them.
// Invariants: Bytes[0..Offsets[Count]) are Count whole commands; Offsets[i] is where command i starts, so any
// prefix of the batch can be sent (the last, partial batch of a --totalops run). A batch is immutable once
// built and may be sent many times.
using Garnet.client;

namespace Resp.benchmark;

public sealed class Batch
{
    public Batch(byte[] bytes, int[] offsets)
    {
        Bytes = bytes;
        Offsets = offsets;
    }

    public byte[] Bytes { get; }
    public int[] Offsets { get; }
    public int Count => Offsets.Length - 1;
    public int Length => Offsets[^1];

    /// <summary>The first <paramref name="commands"/> commands.</summary>
    public ReadOnlySpan<byte> Prefix(int commands) => Bytes.AsSpan(0, Offsets[commands]);

    /// <summary>Builds a batch of <paramref name="count"/> <paramref name="op"/> commands.</summary>
    public static Batch Build(OpType op, int count, RequestWriter requests, KeyChooser chooser)
    {
        var writer = new RespCommandWriter(count * 32);
        var offsets = new int[count + 1];
        for (int i = 0; i < count; i++)
        {
            offsets[i] = writer.Length;
            requests.Write(writer, op, chooser);
        }
        offsets[count] = writer.Length;
        return new Batch(writer.Written.ToArray(), offsets);
    }
}
