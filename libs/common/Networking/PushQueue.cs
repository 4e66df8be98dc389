// PushQueue: the pushed messages (pub/sub, invalidations) of one connection that are not yet handed to its socket.
// Shared by both network engines; they decide when the queued bytes may go out.
// Invariants: any thread may add; messages stay whole and in order; the bytes pending are bounded by RespLimits.Push (an
// add past the limits fails, and the caller closes the connection); Take and Drain hand over everything queued at once.
using Garnet.common.Resp;
using Garnet.common.Util;

namespace Garnet.common.Networking;

public sealed class PushQueue(RespLimits limits)
{
    private readonly object _lock = new();
    private byte[] _buffer = Array.Empty<byte>();
    private int _length;
    private long _overSoftSinceMs;

    /// <summary>Bytes queued (CLIENT LIST omem); read without the lock.</summary>
    public int Length => Volatile.Read(ref _length);

    /// <summary>Adds message; first says it is now the only one queued. False when the bytes pending now pass the push
    /// limits (the message is queued anyway; the caller closes the connection, which drops them).</summary>
    public bool Add(ReadOnlySpan<byte> message, out bool first)
    {
        lock (_lock)
        {
            first = _length == 0;
            int needed = _length + message.Length;
            if (needed > _buffer.Length)
            {
                var nb = LargeBuffers.Rent(Math.Max(needed, Math.Max(256, _buffer.Length * 2)));
                _buffer.AsSpan(0, _length).CopyTo(nb);
                LargeBuffers.Return(_buffer);
                _buffer = nb;
            }
            message.CopyTo(_buffer.AsSpan(_length));
            Volatile.Write(ref _length, needed);
            return !limits.Push.Exceeded(needed, ref _overSoftSinceMs, Environment.TickCount64);
        }
    }

    /// <summary>Takes every queued byte: buffer[0..length), to be returned to LargeBuffers once sent. False when empty.</summary>
    public bool TryTake(out byte[] buffer, out int length)
    {
        lock (_lock)
        {
            buffer = _buffer;
            length = _length;
            if (length == 0) return false;
            _buffer = Array.Empty<byte>();
            Volatile.Write(ref _length, 0);
            _overSoftSinceMs = 0;
            return true;
        }
    }

    /// <summary>Moves every queued byte to the end of replies.</summary>
    public void DrainTo(RespWriter replies)
    {
        if (Length == 0) return;
        lock (_lock)
        {
            if (_length == 0) return;
            replies.WriteRaw(_buffer.AsSpan(0, _length));
            LargeBuffers.Return(_buffer);
            _buffer = Array.Empty<byte>();
            Volatile.Write(ref _length, 0);
            _overSoftSinceMs = 0;
        }
    }

    /// <summary>Drops every queued byte (the connection has closed).</summary>
    public void Clear()
    {
        lock (_lock)
        {
            LargeBuffers.Return(_buffer);
            _buffer = Array.Empty<byte>();
            Volatile.Write(ref _length, 0);
        }
    }
}
