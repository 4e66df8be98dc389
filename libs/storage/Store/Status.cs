// Status of a store operation. Found/NotFound answer the question asked; Pending means the operation needs
// the disk and will complete through the session's completion callback, in issue order.
namespace Garnet.storage.Store;

[Flags]
public enum Status : byte
{
    NotFound = 0,
    Found = 1,
    Pending = 2,
    /// <summary>
    /// The operation made a key exist that did not before. For Upsert this means the live key count went up; for RMW it
    /// also covers an expired key started afresh (Created | Expired), which the count already included.
    /// </summary>
    Created = 4,
    /// <summary>The value was changed in place.</summary>
    InPlaceUpdated = 8,
    /// <summary>A new version of the record was appended at the tail.</summary>
    CopyUpdated = 16,
    /// <summary>The record found had expired (it counts as not found).</summary>
    Expired = 32,
    /// <summary>An RMW deleted the key (UpdateAction.Delete, or RecordRef.DeleteRecord from NeedCopyUpdate).</summary>
    Deleted = 64,
}

public static class StatusExtensions
{
    public static bool IsFound(this Status s) => (s & Status.Found) != 0;
    public static bool IsPending(this Status s) => (s & Status.Pending) != 0;
}

/// <summary>What an in-place update callback decided.</summary>
public enum UpdateAction
{
    /// <summary>The value was updated in place (or left as it is on purpose).</summary>
    Done,
    /// <summary>The new value does not fit: copy the record to the tail (CopyUpdater runs next).</summary>
    NeedCopy,
    /// <summary>Treat the record as expired: the initial-update path runs as if the key did not exist.</summary>
    Expire,
    /// <summary>Change nothing; the operation reports Found without an update flag.</summary>
    Abort,
    /// <summary>Delete the key (as Delete would, under the same lock): the operation reports Found | Deleted.</summary>
    Delete,
}
