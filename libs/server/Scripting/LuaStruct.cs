// LuaStruct: Redis's struct library (pack/unpack/size) is not implemented yet: each call fails with a clear error.
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaStruct
{
    public static int Pack(Lua l) => LuaCallbacks.Fail(l, "struct.pack is not supported by this server");
    public static int Unpack(Lua l) => LuaCallbacks.Fail(l, "struct.unpack is not supported by this server");
    public static int Size(Lua l) => LuaCallbacks.Fail(l, "struct.size is not supported by this server");
}
