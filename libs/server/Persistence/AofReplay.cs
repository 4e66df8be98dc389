// AofReplay: at start, runs the commands of the AOF files (from the checkpoint's file on) through an ordinary session,
// so replay has exactly the semantics of the commands that were logged.
// Invariants:
//  - Blocks are checked (magic, length, CRC) before their commands run. A bad block at the end of the last file is a
//    torn tail (a write cut short by a crash): the file is truncated there, with a warning. A bad block anywhere else
//    is corruption: start-up stops naming the file and offset, unless IgnoreUnreadableData (then the rest is dropped).
//  - Each file starts in database 0 (the writer puts a SELECT before any command of another database).
//  - Nothing is appended to the AOF while replaying (the log is opened after replay).
//  - The server's clock reads each block's time while its commands run, so expiry is judged as it was.
//  - Logged commands succeeded when they ran; one that fails in replay means the data diverged: start-up stops.
//  - Without a checkpoint, the files must start at sequence 1 (else their beginning is missing): start-up stops.
using System.Buffers.Binary;
using System.Net.Sockets;
using Garnet.common.Networking;
using Garnet.server.Session;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Persistence;

public readonly record struct ReplayResult(int Files, long Commands, long Errors, TimeSpan Duration);

public static class AofReplay
{
    /// <summary>True when a whole, valid block starts somewhere after offset (then a bad block before it is not a torn tail).</summary>
    private static bool ValidBlockAfter(FileStream file, long offset)
    {
        long length = file.Length;
        var header = new byte[AofLog.BlockHeader];
        var window = new byte[1 << 16];
        for (long at = offset; at + AofLog.BlockHeader <= length;)
        {
            file.Position = at;
            int n = file.Read(window);
            if (n < 4) return false;
            int hit = window.AsSpan(0, n).IndexOf(AofLog.BlockMagic);
            if (hit < 0) { at += n - 3; continue; }
            long start = at + hit;
            file.Position = start;
            if (length - start >= AofLog.BlockHeader && file.Read(header) == AofLog.BlockHeader)
            {
                int size = BinaryPrimitives.ReadInt32LittleEndian(header.AsSpan(4));
                if (size >= 0 && length - start - AofLog.BlockHeader >= size)
                {
                    var payload = new byte[size];
                    file.ReadExactly(payload);
                    if (AofLog.BlockCrc(header.AsSpan(8, 8), payload) == BinaryPrimitives.ReadUInt64LittleEndian(header.AsSpan(16))) return true;
                }
            }
            at = start + 1;
        }
        return false;
    }

    private static bool OnlyZerosFrom(FileStream file, long offset)
    {
        file.Position = offset;
        var buffer = new byte[1 << 16];
        int n;
        while ((n = file.Read(buffer)) > 0)
            if (buffer.AsSpan(0, n).ContainsAnyExcept((byte)0)) return false;
        return true;
    }

    public static ReplayResult Run(RespServer server, string dir, long fromSequence, bool ignoreUnreadable, ILogger logger)
    {
        var started = System.Diagnostics.Stopwatch.StartNew();
        var files = AofLog.Existing(dir).Where(f => f.sequence >= fromSequence).ToList();
        if (files.Count == 0) return default;
        if (fromSequence == 0 && files[0].sequence != 1 && !ignoreUnreadable)
            throw new PersistenceException($"Cannot start: {dir} has no checkpoint, and its oldest append-only file is {Path.GetFileName(files[0].path)}, " +
                "so the writes before it are missing. Restore the checkpoint or the missing files, or start with --ignore-unreadable-data to replay what is there.");
        var clock = server.Store.Clock;
        var session = new RespServerSession(server, new DetachedChannel()) { Authenticated = true };
        long commands = 0;
        var input = new InputBuffer();
        try
        {
            for (int f = 0; f < files.Count; f++)
            {
                var (path, _) = files[f];
                bool lastFile = f == files.Count - 1;
                session.Database = 0;
                long before = session.CommandsProcessed;
                using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.Read, bufferSize: 1 << 16);
                long length = file.Length, offset = 0;
                var header = new byte[AofLog.BlockHeader];
                while (offset < length)
                {
                    string? problem = null;
                    byte[]? payload = null;
                    if (length - offset < AofLog.BlockHeader) problem = "a block header cut short";
                    else
                    {
                        file.Position = offset;
                        file.ReadExactly(header);
                        int size = BinaryPrimitives.ReadInt32LittleEndian(header.AsSpan(4));
                        if (!header.AsSpan(0, 4).SequenceEqual(AofLog.BlockMagic) || size < 0) problem = "no block starts here";
                        else if (length - offset - AofLog.BlockHeader < size) problem = "a block cut short";
                        else
                        {
                            payload = new byte[size];
                            file.ReadExactly(payload);
                            if (AofLog.BlockCrc(header.AsSpan(8, 8), payload) != BinaryPrimitives.ReadUInt64LittleEndian(header.AsSpan(16)))
                                problem = "a block whose checksum does not match";
                        }
                    }
                    if (problem is not null)
                    {
                        // A crash mid-write leaves a prefix of the last block (or zeros the file system filled in): that is a
                        // torn tail. Anything else, or anything followed by more blocks, is corruption.
                        bool tail = lastFile && !ValidBlockAfter(file, offset + 1) && (problem == "a block header cut short" || problem == "a block cut short"
                            || (payload is not null && offset + AofLog.BlockHeader + payload.Length == length)
                            || OnlyZerosFrom(file, offset));
                        if (!tail && !ignoreUnreadable)
                            throw new PersistenceException($"Cannot start: the append-only file {path} is corrupt at offset {offset} ({problem}). " +
                                "Fix or move the file, or start with --ignore-unreadable-data to drop it from that point (the writes there are lost).");
                        if (tail) logger.LogWarning("The append-only file {File} ends with a torn write ({Problem}, {Bytes} bytes at offset {Offset}): cut at the last whole block", path, problem, length - offset, offset);
                        else logger.LogError("The append-only file {File} is corrupt at offset {Offset} ({Problem}): dropping the rest (--ignore-unreadable-data)", path, offset, problem);
                        file.SetLength(offset);
                        file.Flush(flushToDisk: true);
                        if (!tail) for (int g = f + 1; g < files.Count; g++) File.Move(files[g].path, files[g].path + ".unreadable", overwrite: true);
                        if (!tail) { f = files.Count; }
                        break;
                    }
                    input.Data = payload!;
                    input.Start = 0;
                    input.End = payload!.Length;
                    long timeMs = BinaryPrimitives.ReadInt64LittleEndian(header.AsSpan(8));
                    if (timeMs > 0) clock.Set(timeMs);
                    while (true)
                    {
                        long errorsBefore = session.ErrorReplies;
                        var result = session.Process(input);
                        if (session.ErrorReplies != errorsBefore && !ignoreUnreadable)
                        {
                            string reply = System.Text.Encoding.UTF8.GetString(session.Output.WrittenSpan);
                            int at = reply.IndexOf('-');
                            string error = at < 0 ? reply : reply[at..].Split('\r')[0];
                            throw new PersistenceException($"Cannot start: replaying the append-only file {path} (block at offset {offset}) gave an error: {error}. " +
                                "The data would differ from what was written; start with --ignore-unreadable-data to replay anyway.");
                        }
                        session.Output.Reset(releaseBuffer: false);
                        if (result == ProcessResult.FlushAndContinue) continue;
                        if (result == ProcessResult.Close || input.Count != 0)
                            throw new PersistenceException($"Cannot start: the append-only file {path} holds a request that does not parse at offset {offset}.");
                        break;
                    }
                    offset += AofLog.BlockHeader + payload.Length;
                }
                commands += session.CommandsProcessed - before;
            }
        }
        finally
        {
            clock.Release();
            session.OnClosed();
        }
        long errors = session.ErrorReplies;
        if (errors > 0) logger.LogWarning("Replaying the append-only files: {Errors} of {Commands} commands answered with an error", errors, commands);
        logger.LogInformation("Replayed {Commands} commands from {Files} append-only file(s) in {Seconds:F2} s", commands, files.Count, started.Elapsed.TotalSeconds);
        return new ReplayResult(files.Count, commands, errors, started.Elapsed);
    }
}
