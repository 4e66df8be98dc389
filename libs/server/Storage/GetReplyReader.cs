// GetReplyReader: GET's reply written straight from a record in memory (StoreSession.ReadInMemory), for the session's
// plain-read path. It writes the bytes StringFunctions.Reader writes for StringOp.Get and touches the record as it does
// (unless CLIENT NO-TOUCH); it declines what only that path answers: an inline collection (WRONGTYPE) and a reply that
// does not fit the writer's buffer as it is (growing it is where client-output-buffer-limit applies).
using Garnet.common.Resp;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

internal readonly struct GetReplyReader(RespWriter writer, bool touch) : IRecordReader
{
    public bool TryRead(ref RecordRef record)
    {
        if (record.ObjectKind != 0 || !writer.TryWriteBulkStringInPlace(record.Value)) return false;
        if (touch) record.Touch();
        return true;
    }
}
