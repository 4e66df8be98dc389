// Recovery: at start, loads the newest readable checkpoint in --dir into the (empty) store.
// Invariants:
//  - A checkpoint is read twice: first whole (CRC, structure, database numbers; values are not kept), then loaded. A file that fails the
//    first pass changes nothing in the store, so the previous checkpoint can be tried next.
//  - The server never starts empty in silence: when --dir holds checkpoints and none can be read, start-up fails with
//    a message naming the file and the reason, unless IgnoreUnreadableData is set (then they are renamed *.unreadable).
//    A newer unreadable checkpoint that an older readable one stands in for is renamed aside too, with an error logged.
//  - Keys already expired are not loaded: expired now, or, when the AOF will be replayed after it (keepUntilReplay),
//    expired at the checkpoint's cut (the replay judges the rest at the original times).
using Garnet.server.Storage;
using Garnet.storage.Store;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Persistence;

/// <summary>Start-up cannot go on: the data in --dir cannot be read (the message says which file and what to do).</summary>
public sealed class PersistenceException(string message, Exception? inner = null) : Exception(message, inner);

/// <summary>AofSequence: the first append-only file that holds writes after the checkpoint (0: replay them all).</summary>
public readonly record struct RecoveryResult(string? File, long Keys, long ExpiredSkipped, long CheckpointUnixSeconds, TimeSpan Duration, long AofSequence)
{
    /// <summary>The function libraries the checkpoint holds (loaded by the server before the AOF replay).</summary>
    public IReadOnlyList<byte[]> Functions { get; init; } = [];
}

public static class Recovery
{
    public static RecoveryResult Run(StoreHost host, string dir, int databases, bool ignoreUnreadable, bool keepUntilReplay, ILogger logger)
    {
        dir = Path.GetFullPath(dir);
        foreach (var tmp in Directory.EnumerateFiles(dir, Checkpointer.FilePrefix + "*" + Checkpointer.FileSuffix + ".tmp"))
        {
            logger.LogInformation("Removing {File}: a checkpoint that was not finished", Path.GetFileName(tmp));
            File.Delete(tmp);
        }
        var files = Checkpointer.Existing(dir);
        var unreadable = new List<(string path, string reason)>();
        RecoveryResult result = default;
        foreach (var (path, _) in files)
        {
            try
            {
                result = Load(host, path, databases, keepUntilReplay, logger);
                break;
            }
            catch (InvalidDataException ex)
            {
                logger.LogError("Checkpoint {File} cannot be read: {Reason}", path, ex.Message);
                unreadable.Add((path, ex.Message));
            }
        }
        if (unreadable.Count > 0)
        {
            if (result.File is null && !ignoreUnreadable)
            {
                var (path, reason) = unreadable[0];
                throw new PersistenceException(
                    $"Cannot start: the checkpoint {path} cannot be read ({reason})" +
                    (unreadable.Count > 1 ? $", nor can {unreadable.Count - 1} older one(s)" : "") +
                    ". Fix or move the file, or start with --ignore-unreadable-data to start without it (the file is then renamed to *.unreadable).");
            }
            foreach (var (path, _) in unreadable)
            {
                File.Move(path, path + ".unreadable", overwrite: true);
                logger.LogError("Renamed the unreadable checkpoint {File} to {NewName}; {What}", path, Path.GetFileName(path) + ".unreadable",
                    result.File is null ? "starting with an empty store (--ignore-unreadable-data)" : $"recovered from the older {Path.GetFileName(result.File)} instead");
            }
        }
        return result;
    }

    private static RecoveryResult Load(StoreHost host, string path, int databases, bool keepUntilReplay, ILogger logger)
    {
        var started = System.Diagnostics.Stopwatch.StartNew();
        string name = Path.GetFileName(path);
        logger.LogInformation("Checking checkpoint {File} ({Bytes} bytes)", name, new FileInfo(path).Length);
        using (var check = new RdbFileReader(path) { SkipValues = true })
        {
            check.Read(e =>
            {
                if (e.Db < 0 || e.Db >= databases)
                    throw new PersistenceException($"Cannot start: the checkpoint {path} holds database {e.Db}, but --databases is {databases}. Start with --databases {e.Db + 1} or more.");
            });
        }
        long loaded = 0, expired = 0, nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        if (keepUntilReplay)
        {
            var aux = RdbFileReader.ReadAux(path);
            if (aux.TryGetValue(Checkpointer.CutTimeAux, out var cutText) && long.TryParse(cutText, out long cutMs)) nowMs = cutMs;
            else if (aux.TryGetValue("ctime", out var ctimeText) && long.TryParse(ctimeText, out long ctimeSeconds)) nowMs = ctimeSeconds * 1000;
        }
        using var session = host.Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions());
        var key = new byte[256];
        // A large value is read straight into the array its LargeValue keeps (one copy of it in memory).
        using var reader = new RdbFileReader(path) { LargeStringHeadroom = 1 };
        long length = reader.Length;
        reader.Read(e =>
        {
            if (e.ExpirationMs != 0 && e.ExpirationMs <= nowMs) { expired++; return; }
            if (key.Length < e.Key.Length + 2) key = new byte[e.Key.Length + 2];
            int id = host.PhysicalId(e.Db);
            key[0] = (byte)(id >> 8);
            key[1] = (byte)id;
            e.Key.CopyTo(key, 2);
            var stored = key.AsSpan(0, e.Key.Length + 2);
            var status = e.Collection is not null ? Garnet.server.Objects.InlineCollection.Upsert(session, stored, e.Collection, e.ExpirationMs)
                : e.Value.Length > LargeValue.InlineLimit
                ? session.Upsert(stored, AsLargeValue(e), e.ExpirationMs)
                : session.Upsert(stored, e.Value.Span, e.ExpirationMs);
            if (status.IsPending()) session.CompletePending(wait: true);
            loaded++;
        }, offset => logger.LogInformation("Loading {File}: {Percent}% ({Keys} keys)", name, length == 0 ? 100 : offset * 100 / length, loaded));
        session.CompletePending(wait: true);
        long ctime = reader.Aux.TryGetValue("ctime", out var c) && long.TryParse(c, out long t) ? t : new DateTimeOffset(File.GetLastWriteTimeUtc(path)).ToUnixTimeSeconds();
        logger.LogInformation("Loaded checkpoint {File}: {Keys} keys ({Expired} already expired, skipped) in {Seconds:F2} s", name, loaded, expired, started.Elapsed.TotalSeconds);
        long aofSeq = reader.Aux.TryGetValue(Checkpointer.AofSequenceAux, out var a) && long.TryParse(a, out long seq) ? seq : 0;
        return new RecoveryResult(path, loaded, expired, ctime, started.Elapsed, aofSeq) { Functions = reader.Functions };
    }

    private static LargeValue AsLargeValue(RdbEntry e)
    {
        if (e.ValueArrayWithHeadroom(1) is not { } array) return LargeValue.Copy(e.Value.Span);
        array[0] = LargeValue.SerializedType;
        return LargeValue.Adopt(array);
    }
}
