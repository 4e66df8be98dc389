// CommandTable: every command the server knows, one row each. Adding a command = one row here plus
// one handler in its family's file (ConnectionCommands, ClientCommands, ServerCommands, ...).
// Invariants:
//  - Names are unique (case-insensitive); subcommands are unique within their container.
//  - Lookup by the raw request bytes allocates nothing.
//  - ACL categories implied by flags (@fast/@slow, @read, @write, @admin, @dangerous, ...) are added here,
//    so rows list only the data-type and family categories.
using System.Text;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public sealed class CommandTable
{
    private static readonly Lazy<CommandTable> s_default = new(() => new CommandTable(Rows()));
    public static CommandTable Default => s_default.Value;

    private readonly CommandLookup _lookup;

    public IReadOnlyList<CommandDefinition> Commands { get; }

    public CommandTable(IEnumerable<CommandDefinition> rows)
    {
        var list = rows.Select(Complete).ToList();
        Commands = list;
        _lookup = new CommandLookup(list);
    }

    public CommandDefinition? Find(ReadOnlySpan<byte> name) => _lookup.Find(name);

    public CommandDefinition? Find(string name) => _lookup.Find(Encoding.UTF8.GetBytes(name));

    private static CommandDefinition Complete(CommandDefinition d) => Complete(d, null);

    private static CommandDefinition Complete(CommandDefinition d, CommandDefinition? parent)
    {
        var acl = d.Acl;
        acl |= d.Flags.HasFlag(Fast) ? A.Fast : A.Slow;
        if (d.Flags.HasFlag(Write)) acl |= A.Write;
        if (d.Flags.HasFlag(ReadOnly)) acl |= A.Read;
        if (d.Flags.HasFlag(Admin)) acl |= A.Admin | A.Dangerous;
        if (d.Flags.HasFlag(CommandFlags.PubSub)) acl |= A.PubSub;
        if (d.Flags.HasFlag(CommandFlags.Blocking)) acl |= A.Blocking;
        var subs = d.Subcommands;
        var done = new CommandDefinition
        {
            Name = d.Name, Arity = d.Arity, Flags = d.Flags, Acl = acl, Keys = d.Keys, Group = parent?.Group ?? d.Group,
            Summary = d.Summary, Since = d.Since, Complexity = d.Complexity, Tips = d.Tips, Handler = d.Handler, KeySpecFlags = d.KeySpecFlags, LocksKeysExclusively = d.LocksKeysExclusively,
            Subcommands = [],
        };
        done.Parent = parent;
        done.FullName = parent is null ? d.Name : parent.Name + "|" + d.Name;
        done.NameUpperBytes = Encoding.ASCII.GetBytes(d.Name.ToUpperInvariant());
        if (subs.Length > 0)
        {
            var completed = subs.Select(s => Complete(s, done)).ToArray();
            done.Subcommands = completed;
            done.SubcommandLookup = new CommandLookup(completed);
        }
        return done;
    }

    // ---------------------------------------------------------------------------------------------
    // The rows. Flags and categories follow Redis 7.2's command definitions.
    // ---------------------------------------------------------------------------------------------
    private static IEnumerable<CommandDefinition> Rows()
    {
        const CommandFlags connFlags = NoScript | Loading | Stale;
        // connection
        yield return new() { Name = "ping", Arity = -1, Flags = Fast | Sentinel, Acl = A.Connection, Group = "connection", Summary = "Returns the server's liveliness response.", Tips = ["request_policy:all_shards", "response_policy:all_succeeded"], Handler = ConnectionCommands.Ping };
        yield return new() { Name = "echo", Arity = 2, Flags = Fast, Acl = A.Connection, Group = "connection", Summary = "Returns the given string.", Handler = ConnectionCommands.Echo };
        yield return new() { Name = "hello", Arity = -1, Flags = NoScript | Loading | Stale | Fast | NoAuth | Sentinel | AllowBusy, Acl = A.Connection, Group = "connection", Since = "6.0.0", Summary = "Handshakes with the Redis server.", Handler = ConnectionCommands.Hello };
        yield return new() { Name = "auth", Arity = -2, Flags = NoScript | Loading | Stale | Fast | NoAuth | Sentinel | AllowBusy, Acl = A.Connection, Group = "connection", Summary = "Authenticates the connection.", Complexity = "O(N) where N is the number of passwords defined for the user", Handler = ConnectionCommands.Auth };
        yield return new() { Name = "select", Arity = 2, Flags = Loading | Stale | Fast, Acl = A.Connection, Group = "connection", Summary = "Changes the selected database.", Handler = ConnectionCommands.Select };
        yield return new() { Name = "quit", Arity = -1, Flags = AllowBusy | NoScript | Loading | Stale | Fast | NoAuth, Acl = A.Connection, Group = "connection", Summary = "Closes the connection.", Handler = ConnectionCommands.Quit };
        yield return new() { Name = "reset", Arity = 1, Flags = NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, Acl = A.Connection, Group = "connection", Since = "6.2.0", Summary = "Resets the connection.", Handler = ConnectionCommands.Reset };
        yield return new()
        {
            Name = "client", Arity = -2, Acl = A.Slow, Group = "connection", Since = "2.4.0", Summary = "A container for client connection commands.", Complexity = "Depends on subcommand.",
            Subcommands =
            [
                new() { Name = "id", Arity = 2, Flags = connFlags, Acl = A.Connection, Since = "5.0.0", Summary = "Returns the unique client ID of the connection.", Handler = ClientCommands.Id },
                new() { Name = "setname", Arity = 3, Flags = connFlags, Acl = A.Connection, Since = "2.6.9", Summary = "Sets the connection name.", Handler = ClientCommands.SetName },
                new() { Name = "getname", Arity = 2, Flags = connFlags, Acl = A.Connection, Since = "2.6.9", Summary = "Returns the name of the connection.", Handler = ClientCommands.GetName },
                new() { Name = "list", Arity = -2, Flags = Admin | connFlags, Acl = A.Connection, Since = "2.4.0", Summary = "Lists open connections.", Complexity = "O(N) where N is the number of client connections", Tips = ["nondeterministic_output"], Handler = ClientCommands.List },
                new() { Name = "info", Arity = 2, Flags = connFlags, Acl = A.Connection, Since = "6.2.0", Summary = "Returns information about the connection.", Tips = ["nondeterministic_output"], Handler = ClientCommands.Info },
                new() { Name = "kill", Arity = -3, Flags = Admin | connFlags, Acl = A.Connection, Since = "2.4.0", Summary = "Terminates open connections.", Complexity = "O(N) where N is the number of client connections", Handler = ClientCommands.Kill },
                new() { Name = "setinfo", Arity = 4, Flags = connFlags, Acl = A.Connection, Since = "7.2.0", Summary = "Sets information specific to the client or connection.", Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"], Handler = ClientCommands.SetInfo },
                new() { Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Connection, Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.", Handler = ClientCommands.Help },
            ],
        };
        // strings (StringCommands)
        var k1 = new KeyRange(1, 1, 1);
        yield return new() { Name = "get", Arity = 2, Flags = ReadOnly | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Returns the string value of a key.", Handler = StringCommands.Get };
        yield return new() { Name = "set", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", Handler = StringCommands.Set };
        yield return new() { Name = "setnx", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Set the string value of a key only when the key doesn't exist.", Handler = StringCommands.SetNx };
        yield return new() { Name = "setex", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1, Group = "string", Since = "2.0.0", Summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", Handler = StringCommands.SetEx };
        yield return new() { Name = "psetex", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1, Group = "string", Since = "2.6.0", Summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", Handler = StringCommands.PSetEx };
        yield return new() { Name = "getset", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Returns the previous string value of a key after setting it to a new value.", Handler = StringCommands.GetSet };
        yield return new() { Name = "getdel", Arity = 2, Flags = Write | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "6.2.0", Summary = "Returns the string value of a key after deleting the key.", Handler = StringCommands.GetDel };
        yield return new() { Name = "getex", Arity = -2, Flags = Write | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "6.2.0", Summary = "Returns the string value of a key after setting its expiration time.", Handler = StringCommands.GetEx };
        yield return new() { Name = "mget", Arity = -2, Flags = ReadOnly | Fast, Acl = A.String, Keys = new KeyRange(1, -1, 1), Group = "string", Since = "1.0.0", Summary = "Atomically returns the string values of one or more keys.", Tips = ["request_policy:multi_shard"], Handler = StringCommands.MGet };
        yield return new() { Name = "mset", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = new KeyRange(1, -1, 2), Group = "string", Since = "1.0.1", Summary = "Atomically creates or modifies the string values of one or more keys.", Tips = ["request_policy:multi_shard", "response_policy:all_succeeded"], Handler = StringCommands.MSet };
        yield return new() { Name = "msetnx", Arity = -3, Flags = Write | DenyOom, Acl = A.String, Keys = new KeyRange(1, -1, 2), Group = "string", Since = "1.0.1", Summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.", LocksKeysExclusively = true, Handler = StringCommands.MSetNx };
        yield return new() { Name = "append", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "2.0.0", Summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.", Handler = StringCommands.Append };
        yield return new() { Name = "strlen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "2.2.0", Summary = "Returns the length of a string value.", Handler = StringCommands.StrLen };
        yield return new() { Name = "getrange", Arity = 4, Flags = ReadOnly, Acl = A.String, Keys = k1, Group = "string", Since = "2.4.0", Summary = "Returns a substring of the string stored at a key.", Handler = StringCommands.GetRange };
        yield return new() { Name = "substr", Arity = 4, Flags = ReadOnly, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Returns a substring from a string value.", Handler = StringCommands.GetRange };
        yield return new() { Name = "setrange", Arity = 4, Flags = Write | DenyOom, Acl = A.String, Keys = k1, Group = "string", Since = "2.2.0", Summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", Handler = StringCommands.SetRange };
        yield return new() { Name = "incr", Arity = 2, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Handler = StringCommands.Incr };
        yield return new() { Name = "decr", Arity = 2, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Handler = StringCommands.Decr };
        yield return new() { Name = "incrby", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Handler = StringCommands.IncrBy };
        yield return new() { Name = "decrby", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "1.0.0", Summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", Handler = StringCommands.DecrBy };
        yield return new() { Name = "incrbyfloat", Arity = 3, Flags = Write | DenyOom | Fast, Acl = A.String, Keys = k1, Group = "string", Since = "2.6.0", Summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Handler = StringCommands.IncrByFloat };
        yield return new() { Name = "lcs", Arity = -3, Flags = ReadOnly, Acl = A.String, Keys = new KeyRange(1, 2, 1), Group = "string", Since = "7.0.0", Summary = "Finds the longest common substring.", Complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively", Handler = LcsCommand.Lcs };
        // bitmaps (BitmapCommands)
        yield return new() { Name = "setbit", Arity = 4, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "2.2.0", Summary = "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", Handler = BitmapCommands.SetBit };
        yield return new() { Name = "getbit", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "2.2.0", Summary = "Returns a bit value by offset.", Handler = BitmapCommands.GetBit };
        yield return new() { Name = "bitcount", Arity = -2, Flags = ReadOnly, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "2.6.0", Summary = "Counts the number of set bits (population counting) in a string.", Handler = BitmapCommands.BitCount };
        yield return new() { Name = "bitpos", Arity = -3, Flags = ReadOnly, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "2.8.7", Summary = "Finds the first set (1) or clear (0) bit in a string.", Handler = BitmapCommands.BitPos };
        yield return new() { Name = "bitop", Arity = -4, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = new KeyRange(2, -1, 1), Group = "bitmap", Since = "2.6.0", Summary = "Performs bitwise operations on multiple strings, and stores the result.", Handler = BitmapCommands.BitOp };
        yield return new() { Name = "bitfield", Arity = -2, Flags = Write | DenyOom, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "3.2.0", Summary = "Performs arbitrary bitfield integer operations on strings.", Handler = BitFieldCommands.BitField };
        yield return new() { Name = "bitfield_ro", Arity = -2, Flags = ReadOnly | Fast, Acl = A.Bitmap, Keys = k1, Group = "bitmap", Since = "6.0.0", Summary = "Performs arbitrary read-only bitfield integer operations on strings.", Handler = BitFieldCommands.BitFieldRo };
        // HyperLogLog (HyperLogLogCommands)
        yield return new() { Name = "pfadd", Arity = -2, Flags = Write | DenyOom | Fast, Acl = A.HyperLogLog, Keys = k1, Group = "hyperloglog", Since = "2.8.9", Summary = "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.", Handler = HyperLogLogCommands.PfAdd };
        yield return new() { Name = "pfcount", Arity = -2, Flags = ReadOnly | MayReplicate, Acl = A.HyperLogLog, Keys = new KeyRange(1, -1, 1), Group = "hyperloglog", Since = "2.8.9", Summary = "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).", Handler = HyperLogLogCommands.PfCount };
        yield return new() { Name = "pfmerge", Arity = -2, Flags = Write | DenyOom, Acl = A.HyperLogLog, Keys = new KeyRange(1, -1, 1), Group = "hyperloglog", Since = "2.8.9", Summary = "Merges one or more HyperLogLog values into a single key.", LocksKeysExclusively = true, Handler = HyperLogLogCommands.PfMerge };
        // hashes (HashCommands): writes lock their key exclusively, as the engine changes collections in place
        yield return new() { Name = "hset", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Creates or modifies the value of a field in a hash.", LocksKeysExclusively = true, Handler = HashCommands.HSet };
        yield return new() { Name = "hmset", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Sets the values of multiple fields.", LocksKeysExclusively = true, Handler = HashCommands.HMSet };
        yield return new() { Name = "hsetnx", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Sets the value of a field in a hash only when the field doesn't exist.", LocksKeysExclusively = true, Handler = HashCommands.HSetNx };
        yield return new() { Name = "hget", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns the value of a field in a hash.", Handler = HashCommands.HGet };
        yield return new() { Name = "hmget", Arity = -3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns the values of all fields in a hash.", Handler = HashCommands.HMGet };
        yield return new() { Name = "hdel", Arity = -3, Flags = Write | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", LocksKeysExclusively = true, Handler = HashCommands.HDel };
        yield return new() { Name = "hlen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns the number of fields in a hash.", Handler = HashCommands.HLen };
        yield return new() { Name = "hexists", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Determines whether a field exists in a hash.", Handler = HashCommands.HExists };
        yield return new() { Name = "hstrlen", Arity = 3, Flags = ReadOnly | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "3.2.0", Summary = "Returns the length of the value of a field.", Handler = HashCommands.HStrLen };
        yield return new() { Name = "hkeys", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns all fields in a hash.", Handler = HashCommands.HKeys };
        yield return new() { Name = "hvals", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns all values in a hash.", Handler = HashCommands.HVals };
        yield return new() { Name = "hgetall", Arity = 2, Flags = ReadOnly, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Returns all fields and values in a hash.", Handler = HashCommands.HGetAll };
        yield return new() { Name = "hincrby", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.0.0", Summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", LocksKeysExclusively = true, Handler = HashCommands.HIncrBy };
        yield return new() { Name = "hincrbyfloat", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.6.0", Summary = "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", LocksKeysExclusively = true, Handler = HashCommands.HIncrByFloat };
        yield return new() { Name = "hrandfield", Arity = -2, Flags = ReadOnly, Acl = A.Hash, Keys = k1, Group = "hash", Since = "6.2.0", Summary = "Returns one or more random fields from a hash.", Handler = HashCommands.HRandField };
        yield return new() { Name = "hscan", Arity = -3, Flags = ReadOnly, Acl = A.Hash, Keys = k1, Group = "hash", Since = "2.8.0", Summary = "Iterates over fields and values of a hash.", Handler = HashCommands.HScan };
        // lists (ListCommands)
        yield return new() { Name = "lpush", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Prepends one or more elements to a list. Creates the key if it doesn't exist.", LocksKeysExclusively = true, Handler = ListCommands.LPush };
        yield return new() { Name = "rpush", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Appends one or more elements to a list. Creates the key if it doesn't exist.", LocksKeysExclusively = true, Handler = ListCommands.RPush };
        yield return new() { Name = "lpushx", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "2.2.0", Summary = "Prepends one or more elements to a list only when the list exists.", LocksKeysExclusively = true, Handler = ListCommands.LPushX };
        yield return new() { Name = "rpushx", Arity = -3, Flags = Write | DenyOom | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "2.2.0", Summary = "Appends an element to a list only when the list exists.", LocksKeysExclusively = true, Handler = ListCommands.RPushX };
        yield return new() { Name = "lpop", Arity = -2, Flags = Write | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.", LocksKeysExclusively = true, Handler = ListCommands.LPop };
        yield return new() { Name = "rpop", Arity = -2, Flags = Write | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Returns and removes the last elements of a list. Deletes the list if the last element was popped.", LocksKeysExclusively = true, Handler = ListCommands.RPop };
        yield return new() { Name = "llen", Arity = 2, Flags = ReadOnly | Fast, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Returns the length of a list.", Handler = ListCommands.LLen };
        yield return new() { Name = "lrange", Arity = 4, Flags = ReadOnly, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Returns a range of elements from a list.", Handler = ListCommands.LRange };
        yield return new() { Name = "lindex", Arity = 3, Flags = ReadOnly, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Returns an element from a list by its index.", Handler = ListCommands.LIndex };
        yield return new() { Name = "lset", Arity = 4, Flags = Write | DenyOom, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Sets the value of an element in a list by its index.", LocksKeysExclusively = true, Handler = ListCommands.LSet };
        yield return new() { Name = "linsert", Arity = 5, Flags = Write | DenyOom, Acl = A.List, Keys = k1, Group = "list", Since = "2.2.0", Summary = "Inserts an element before or after another element in a list.", LocksKeysExclusively = true, Handler = ListCommands.LInsert };
        yield return new() { Name = "lrem", Arity = 4, Flags = Write, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Removes elements from a list. Deletes the list if the last element was removed.", LocksKeysExclusively = true, Handler = ListCommands.LRem };
        yield return new() { Name = "ltrim", Arity = 4, Flags = Write, Acl = A.List, Keys = k1, Group = "list", Since = "1.0.0", Summary = "Removes elements from both ends a list. Deletes the list if all elements were trimmed.", LocksKeysExclusively = true, Handler = ListCommands.LTrim };
        yield return new() { Name = "lpos", Arity = -3, Flags = ReadOnly, Acl = A.List, Keys = k1, Group = "list", Since = "6.0.6", Summary = "Returns the index of matching elements in a list.", Handler = ListCommands.LPos };
        yield return new() { Name = "lmove", Arity = 5, Flags = Write | DenyOom, Acl = A.List, Keys = new KeyRange(1, 2, 1), Group = "list", Since = "6.2.0", Summary = "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.", LocksKeysExclusively = true, Handler = ListCommands.LMove };
        yield return new() { Name = "rpoplpush", Arity = 3, Flags = Write | DenyOom, Acl = A.List, Keys = new KeyRange(1, 2, 1), Group = "list", Since = "1.2.0", Summary = "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.", LocksKeysExclusively = true, Handler = ListCommands.RPopLPush };
        yield return new() { Name = "lmpop", Arity = -4, Flags = Write | MovableKeys, Acl = A.List, Keys = new KeyRange(2, -1, 1), Group = "list", Since = "7.0.0", Summary = "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.", LocksKeysExclusively = true, Handler = ListCommands.LMPop };
        // sorted sets (SortedSetCommands): writes lock their keys exclusively, as the engine changes collections in place;
        // commands with a numkeys argument lock every argument after it (a superset of their keys), as LMPOP does
        var zkeys2 = new KeyRange(2, -1, 1);
        yield return new() { Name = "zadd", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.", Complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZAdd };
        yield return new() { Name = "zincrby", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Increments the score of a member in a sorted set.", Complexity = "O(log(N)) where N is the number of elements in the sorted set.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZIncrBy };
        yield return new() { Name = "zrem", Arity = -3, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.", Complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZRem };
        yield return new() { Name = "zcard", Arity = 2, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Returns the number of members in a sorted set.", Handler = SortedSetCommands.ZCard };
        yield return new() { Name = "zcount", Arity = 4, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.0.0", Summary = "Returns the count of members in a sorted set that have scores within a range.", Complexity = "O(log(N)) with N being the number of elements in the sorted set.", Handler = SortedSetCommands.ZCount };
        yield return new() { Name = "zlexcount", Arity = 4, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.8.9", Summary = "Returns the number of members in a sorted set within a lexicographical range.", Complexity = "O(log(N)) with N being the number of elements in the sorted set.", Handler = SortedSetCommands.ZLexCount };
        yield return new() { Name = "zscore", Arity = 3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Returns the score of a member in a sorted set.", Handler = SortedSetCommands.ZScore };
        yield return new() { Name = "zmscore", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "6.2.0", Summary = "Returns the score of one or more members in a sorted set.", Complexity = "O(N) where N is the number of members being requested.", Handler = SortedSetCommands.ZMScore };
        yield return new() { Name = "zrank", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.0.0", Summary = "Returns the index of a member in a sorted set ordered by ascending scores.", Complexity = "O(log(N))", Handler = SortedSetCommands.ZRank };
        yield return new() { Name = "zrevrank", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.0.0", Summary = "Returns the index of a member in a sorted set ordered by descending scores.", Complexity = "O(log(N))", Handler = SortedSetCommands.ZRevRank };
        yield return new() { Name = "zrange", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Returns members in a sorted set within a range of indexes.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", Handler = SortedSetCommands.ZRange };
        yield return new() { Name = "zrangestore", Arity = -5, Flags = Write | DenyOom, Acl = A.SortedSet, Keys = new KeyRange(1, 2, 1), Group = "sorted_set", Since = "6.2.0", Summary = "Stores a range of members from sorted set in a key.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZRangeStore };
        yield return new() { Name = "zrangebyscore", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.0.5", Summary = "Returns members in a sorted set within a range of scores.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", Handler = SortedSetCommands.ZRangeByScore };
        yield return new() { Name = "zrevrangebyscore", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.2.0", Summary = "Returns members in a sorted set within a range of scores in reverse order.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", Handler = SortedSetCommands.ZRevRangeByScore };
        yield return new() { Name = "zrangebylex", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.8.9", Summary = "Returns members in a sorted set within a lexicographical range.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", Handler = SortedSetCommands.ZRangeByLex };
        yield return new() { Name = "zrevrangebylex", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.8.9", Summary = "Returns members in a sorted set within a lexicographical range in reverse order.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", Handler = SortedSetCommands.ZRevRangeByLex };
        yield return new() { Name = "zrevrange", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Returns members in a sorted set within a range of indexes in reverse order.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", Handler = SortedSetCommands.ZRevRange };
        yield return new() { Name = "zremrangebyrank", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.0.0", Summary = "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZRemRangeByRank };
        yield return new() { Name = "zremrangebyscore", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "1.2.0", Summary = "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZRemRangeByScore };
        yield return new() { Name = "zremrangebylex", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.8.9", Summary = "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.", Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZRemRangeByLex };
        yield return new() { Name = "zpopmin", Arity = -2, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "5.0.0", Summary = "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", Complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZPopMin };
        yield return new() { Name = "zpopmax", Arity = -2, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "5.0.0", Summary = "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", Complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZPopMax };
        yield return new() { Name = "zmpop", Arity = -4, Flags = Write | MovableKeys, Acl = A.SortedSet, Keys = zkeys2, Group = "sorted_set", Since = "7.0.0", Summary = "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.", Complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZMPop };
        yield return new() { Name = "zrandmember", Arity = -2, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "6.2.0", Summary = "Returns one or more random members from a sorted set.", Complexity = "O(N) where N is the number of members returned", Tips = ["nondeterministic_output"], Handler = SortedSetCommands.ZRandMember };
        yield return new() { Name = "zinter", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2, Group = "sorted_set", Since = "6.2.0", Summary = "Returns the intersect of multiple sorted sets.", Complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", Handler = SortedSetCommands.ZInter };
        yield return new() { Name = "zunion", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2, Group = "sorted_set", Since = "6.2.0", Summary = "Returns the union of multiple sorted sets.", Complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", Handler = SortedSetCommands.ZUnion };
        yield return new() { Name = "zdiff", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2, Group = "sorted_set", Since = "6.2.0", Summary = "Returns the difference between multiple sorted sets.", Complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", Handler = SortedSetCommands.ZDiff };
        yield return new() { Name = "zinterstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1), Group = "sorted_set", Since = "2.0.0", Summary = "Stores the intersect of multiple sorted sets in a key.", Complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZInterStore };
        yield return new() { Name = "zunionstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1), Group = "sorted_set", Since = "2.0.0", Summary = "Stores the union of multiple sorted sets in a key.", Complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZUnionStore };
        yield return new() { Name = "zdiffstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1), Group = "sorted_set", Since = "6.2.0", Summary = "Stores the difference of multiple sorted sets in a key.", Complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", LocksKeysExclusively = true, Handler = SortedSetCommands.ZDiffStore };
        yield return new() { Name = "zintercard", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2, Group = "sorted_set", Since = "7.0.0", Summary = "Returns the number of members of the intersect of multiple sorted sets.", Complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.", Handler = SortedSetCommands.ZInterCard };
        yield return new() { Name = "zscan", Arity = -3, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1, Group = "sorted_set", Since = "2.8.0", Summary = "Iterates over members and scores of a sorted set.", Complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", Tips = ["nondeterministic_output"], Handler = SortedSetCommands.ZScan };
        // keys and databases (KeyCommands)
        yield return new() { Name = "del", Arity = -2, Flags = Write, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1), Group = "generic", Since = "1.0.0", Summary = "Deletes one or more keys.", Tips = ["request_policy:multi_shard", "response_policy:agg_sum"], Handler = KeyCommands.Del };
        yield return new() { Name = "unlink", Arity = -2, Flags = Write | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1), Group = "generic", Since = "4.0.0", Summary = "Asynchronously deletes one or more keys.", Tips = ["request_policy:multi_shard", "response_policy:agg_sum"], Handler = KeyCommands.Del };
        yield return new() { Name = "exists", Arity = -2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1), Group = "generic", Since = "1.0.0", Summary = "Determines whether one or more keys exist.", Tips = ["request_policy:multi_shard", "response_policy:agg_sum"], Handler = KeyCommands.ExistsCommand };
        yield return new() { Name = "type", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "1.0.0", Summary = "Determines the type of value stored at a key.", Handler = KeyCommands.Type };
        yield return new() { Name = "expire", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "1.0.0", Summary = "Sets the expiration time of a key in seconds.", Handler = KeyCommands.Expire };
        yield return new() { Name = "pexpire", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "2.6.0", Summary = "Sets the expiration time of a key in milliseconds.", Handler = KeyCommands.PExpire };
        yield return new() { Name = "expireat", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "1.2.0", Summary = "Sets the expiration time of a key to a Unix timestamp.", Handler = KeyCommands.ExpireAt };
        yield return new() { Name = "pexpireat", Arity = -3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "2.6.0", Summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.", Handler = KeyCommands.PExpireAt };
        yield return new() { Name = "ttl", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "1.0.0", Summary = "Returns the expiration time in seconds of a key.", Tips = ["nondeterministic_output"], Handler = KeyCommands.Ttl };
        yield return new() { Name = "pttl", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "2.6.0", Summary = "Returns the expiration time in milliseconds of a key.", Tips = ["nondeterministic_output"], Handler = KeyCommands.PTtl };
        yield return new() { Name = "expiretime", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "7.0.0", Summary = "Returns the expiration time of a key as a Unix timestamp.", Handler = KeyCommands.ExpireTime };
        yield return new() { Name = "pexpiretime", Arity = 2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "7.0.0", Summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.", Handler = KeyCommands.PExpireTime };
        yield return new() { Name = "persist", Arity = 2, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "2.2.0", Summary = "Removes the expiration time of a key.", Handler = KeyCommands.Persist };
        yield return new() { Name = "touch", Arity = -2, Flags = ReadOnly | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, -1, 1), Group = "generic", Since = "3.2.1", Summary = "Returns the number of existing keys out of those specified after updating the time they were last accessed.", Tips = ["request_policy:multi_shard", "response_policy:agg_sum"], Handler = KeyCommands.Touch };
        yield return new() { Name = "rename", Arity = 3, Flags = Write, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1), Group = "generic", Since = "1.0.0", Summary = "Renames a key and overwrites the destination.", Handler = KeyCommands.Rename };
        yield return new() { Name = "renamenx", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1), Group = "generic", Since = "1.0.0", Summary = "Renames a key only when the target key name doesn't exist.", Handler = KeyCommands.RenameNx };
        yield return new() { Name = "copy", Arity = -3, Flags = Write | DenyOom, Acl = A.Keyspace, Keys = new KeyRange(1, 2, 1), Group = "generic", Since = "6.2.0", Summary = "Copies the value of a key to a new key.", Handler = KeyCommands.Copy };
        yield return new() { Name = "move", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "1.0.0", Summary = "Moves a key to another database.", LocksKeysExclusively = true, Handler = KeyCommands.Move };
        yield return new() { Name = "dump", Arity = 2, Flags = ReadOnly, Acl = A.Keyspace, Keys = k1, Group = "generic", Since = "2.6.0", Summary = "Returns a serialized representation of the value stored at a key.", Tips = ["nondeterministic_output"], Handler = DumpCommands.Dump };
        yield return new() { Name = "restore", Arity = -4, Flags = Write | DenyOom, Acl = A.Keyspace | A.Dangerous, Keys = k1, Group = "generic", Since = "2.6.0", Summary = "Creates a key from the serialized representation of a value.", LocksKeysExclusively = true, Handler = DumpCommands.Restore };
        yield return new()
        {
            Name = "object", Arity = -2, Acl = A.Slow, Group = "generic", Since = "2.2.3", Summary = "A container for object introspection commands.", Complexity = "Depends on subcommand.",
            Subcommands =
            [
                new() { Name = "encoding", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1), Since = "2.2.3", Summary = "Returns the internal encoding of a Redis object.", Tips = ["nondeterministic_output"], Handler = ObjectCommands.Encoding },
                new() { Name = "freq", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1), Since = "4.0.0", Summary = "Returns the logarithmic access frequency counter of a Redis object.", Tips = ["nondeterministic_output"], Handler = ObjectCommands.Freq },
                new() { Name = "idletime", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1), Since = "2.2.3", Summary = "Returns the time since the last access to a Redis object.", Tips = ["nondeterministic_output"], Handler = ObjectCommands.IdleTime },
                new() { Name = "refcount", Arity = 3, Flags = ReadOnly, Acl = A.Keyspace, Keys = new KeyRange(2, 2, 1), Since = "2.2.3", Summary = "Returns the reference count of a value of a key.", Tips = ["nondeterministic_output"], Handler = ObjectCommands.RefCount },
                new() { Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Keyspace, Since = "6.2.0", Summary = "Returns helpful text about the different subcommands.", Handler = ObjectCommands.Help },
            ],
        };
        yield return new()
        {
            Name = "memory", Arity = -2, Acl = A.Slow, Group = "server", Since = "4.0.0", Summary = "A container for memory diagnostics commands.", Complexity = "Depends on subcommand.",
            Subcommands =
            [
                new() { Name = "usage", Arity = -3, Flags = ReadOnly, Keys = new KeyRange(2, 2, 1), Since = "4.0.0", Summary = "Estimates the memory usage of a key.", Complexity = "O(N) where N is the number of samples.", Handler = ObjectCommands.MemoryUsage },
                new() { Name = "stats", Arity = 2, Since = "4.0.0", Summary = "Returns details about memory usage.", Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"], Handler = MemoryCommands.Stats },
                new() { Name = "doctor", Arity = 2, Since = "4.0.0", Summary = "Outputs a memory problems report.", Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"], Handler = MemoryCommands.Doctor },
                new() { Name = "malloc-stats", Arity = 2, Since = "4.0.0", Summary = "Returns the allocator statistics.", Complexity = "Depends on how much memory is allocated, could be slow", Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"], Handler = MemoryCommands.MallocStats },
                new() { Name = "purge", Arity = 2, Since = "4.0.0", Summary = "Asks the allocator to release memory.", Complexity = "Depends on how much memory is allocated, could be slow", Tips = ["request_policy:all_shards", "response_policy:all_succeeded"], Handler = MemoryCommands.Purge },
                new() { Name = "help", Arity = 2, Flags = Loading | Stale, Since = "4.0.0", Summary = "Returns helpful text about the different subcommands.", Handler = MemoryCommands.Help },
            ],
        };
        yield return new() { Name = "keys", Arity = 2, Flags = ReadOnly, Acl = A.Keyspace | A.Dangerous, Group = "generic", Since = "1.0.0", Summary = "Returns all key names that match a pattern.", Tips = ["request_policy:all_shards", "nondeterministic_output_order"], Handler = KeyCommands.Keys };
        yield return new() { Name = "scan", Arity = -2, Flags = ReadOnly, Acl = A.Keyspace, Group = "generic", Since = "2.8.0", Summary = "Iterates over the key names in the database.", Tips = ["nondeterministic_output", "request_policy:special", "response_policy:special"], Handler = KeyCommands.Scan };
        yield return new() { Name = "randomkey", Arity = 1, Flags = ReadOnly, Acl = A.Keyspace, Group = "generic", Since = "1.0.0", Summary = "Returns a random key name from the database.", Tips = ["request_policy:all_shards", "response_policy:special", "nondeterministic_output"], Handler = KeyCommands.RandomKey };
        yield return new() { Name = "dbsize", Arity = 1, Flags = ReadOnly | Fast, Acl = A.Keyspace, Group = "server", Since = "1.0.0", Summary = "Returns the number of keys in the database.", Tips = ["request_policy:all_shards", "response_policy:agg_sum"], Handler = KeyCommands.DbSize };
        yield return new() { Name = "flushdb", Arity = -1, Flags = Write, Acl = A.Keyspace | A.Dangerous, Group = "server", Since = "1.0.0", Summary = "Remove all keys from the current database.", Tips = ["request_policy:all_shards", "response_policy:all_succeeded"], Handler = KeyCommands.FlushDb };
        yield return new() { Name = "flushall", Arity = -1, Flags = Write, Acl = A.Keyspace | A.Dangerous, Group = "server", Since = "1.0.0", Summary = "Removes all keys from all databases.", Tips = ["request_policy:all_shards", "response_policy:all_succeeded"], Handler = KeyCommands.FlushAll };
        yield return new() { Name = "swapdb", Arity = 3, Flags = Write | Fast, Acl = A.Keyspace | A.Dangerous, Group = "server", Since = "4.0.0", Summary = "Swaps two Redis databases.", Handler = KeyCommands.SwapDb };
        // server
        yield return new() { Name = "time", Arity = 1, Flags = Loading | Stale | Fast, Group = "server", Since = "2.6.0", Summary = "Returns the server time.", Tips = ["nondeterministic_output"], Handler = ServerCommands.Time };
        yield return new() { Name = "info", Arity = -1, Flags = Loading | Stale | Sentinel, Acl = A.Dangerous, Group = "server", Summary = "Returns information and statistics about the server.", Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"], Handler = ServerCommands.Info };
        yield return new() { Name = "save", Arity = 1, Flags = Admin | NoScript | NoAsyncLoading | NoMulti, Group = "server", Summary = "Synchronously saves the database(s) to disk.", Complexity = "O(N) where N is the total number of keys in all databases", Handler = PersistenceCommands.Save };
        yield return new() { Name = "bgsave", Arity = -1, Flags = Admin | NoScript | NoAsyncLoading, Group = "server", Summary = "Asynchronously saves the database(s) to disk.", Complexity = "O(1)", Handler = PersistenceCommands.BgSave };
        yield return new() { Name = "bgrewriteaof", Arity = 1, Flags = Admin | NoScript | NoAsyncLoading, Group = "server", Summary = "Asynchronously rewrites the append-only file to disk.", Complexity = "O(1)", Handler = PersistenceCommands.BgRewriteAof };
        yield return new() { Name = "compact", Arity = 1, Flags = Admin | NoScript, Group = "server", Since = "0.1.0", Summary = "Compacts the oldest on-disk part of the log now (this server's extension; it also runs every --compaction-interval seconds).", Complexity = "O(N) where N is the number of records in the compacted segments", Handler = PersistenceCommands.Compact };
        yield return new() { Name = "lastsave", Arity = 1, Flags = Loading | Stale | Fast, Acl = A.Admin | A.Dangerous, Group = "server", Summary = "Returns the Unix timestamp of the last successful save to disk.", Tips = ["nondeterministic_output"], Handler = PersistenceCommands.LastSave };
        yield return new() { Name = "shutdown", Arity = -1, Flags = Admin | NoScript | Loading | Stale | NoMulti | Sentinel | AllowBusy, Group = "server", Summary = "Synchronously saves the database(s) to disk and shuts down the Redis server.", Complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", Handler = ServerCommands.Shutdown };
        yield return new()
        {
            Name = "config", Arity = -2, Acl = A.Slow, Group = "server", Since = "2.0.0", Summary = "A container for server configuration commands.", Complexity = "Depends on subcommand.",
            Subcommands =
            [
                new() { Name = "get", Arity = -3, Flags = Admin | connFlags, Since = "2.0.0", Summary = "Returns the effective values of configuration parameters.", Complexity = "O(N) when N is the number of configuration parameters provided", Handler = ConfigCommands.Get },
                new() { Name = "set", Arity = -4, Flags = Admin | connFlags, Since = "2.0.0", Summary = "Sets configuration parameters in-flight.", Complexity = "O(N) when N is the number of configuration parameters provided", Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"], Handler = ConfigCommands.Set },
                new() { Name = "rewrite", Arity = 2, Flags = Admin | NoScript | Loading | Stale, Since = "2.8.0", Summary = "Persists the effective configuration to file.", Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"], Handler = ConfigCommands.Rewrite },
                new() { Name = "resetstat", Arity = 2, Flags = Admin | connFlags, Since = "2.0.0", Summary = "Resets the server's statistics.", Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"], Handler = ConfigCommands.ResetStat },
                new() { Name = "help", Arity = 2, Flags = Loading | Stale, Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.", Handler = ConfigCommands.Help },
            ],
        };
        yield return new()
        {
            Name = "command", Arity = -1, Flags = Loading | Stale | Sentinel, Acl = A.Connection, Group = "server", Since = "2.8.13", Summary = "Returns detailed information about all commands.", Complexity = "O(N) where N is the total number of Redis commands", Tips = ["nondeterministic_output_order"], Handler = CommandCommands.All,
            Subcommands =
            [
                new() { Name = "count", Arity = 2, Flags = Loading | Stale, Acl = A.Connection, Since = "2.8.13", Summary = "Returns a count of commands.", Handler = CommandCommands.Count },
                new() { Name = "docs", Arity = -2, Flags = Loading | Stale, Acl = A.Connection, Since = "7.0.0", Summary = "Returns documentary information about one, multiple or all commands.", Complexity = "O(N) where N is the number of commands to look up", Tips = ["nondeterministic_output_order"], Handler = CommandCommands.Docs },
                new() { Name = "info", Arity = -2, Flags = Loading | Stale, Acl = A.Connection, Since = "2.8.13", Summary = "Returns information about one, multiple or all commands.", Complexity = "O(N) where N is the number of commands to look up", Tips = ["nondeterministic_output_order"], Handler = CommandCommands.Info },
                new() { Name = "list", Arity = -2, Flags = Loading | Stale, Acl = A.Connection, Since = "7.0.0", Summary = "Returns a list of command names.", Complexity = "O(N) where N is the total number of Redis commands", Tips = ["nondeterministic_output_order"], Handler = CommandCommands.List },
                new() { Name = "getkeys", Arity = -3, Flags = Loading | Stale, Acl = A.Connection, Since = "2.8.13", Summary = "Extracts the key names from an arbitrary command.", Complexity = "O(N) where N is the number of arguments to the command", Handler = CommandCommands.GetKeys },
                new() { Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Connection, Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.", Handler = CommandCommands.Help },
            ],
        };
    }
}
