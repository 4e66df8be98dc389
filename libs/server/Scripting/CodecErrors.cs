// CodecErrors: the one way cjson, cmsgpack and struct primitives end: (true, results...) or (false, message) where the
// message is the library's own wording (a LuaArgumentException's text), "not enough memory" when .NET runs out, or the
// codec's generic text: a .NET exception message never reaches a client.
namespace Garnet.server.Scripting;

internal static class CodecErrors
{
    /// <summary>Runs body (which pushes its results and returns how many); on failure pushes (false, message).</summary>
    public static int Run(KeraLua.Lua l, string genericError, Func<int> body)
    {
        try { return body(); }
        catch (LuaArgumentException ex) { return LuaCallbacks.Fail(l, ex.Message); }
        catch (OutOfMemoryException) { return LuaCallbacks.Fail(l, ScriptMemoryBudget.NotEnoughMemory); }
        catch (InsufficientExecutionStackException) { return LuaCallbacks.Fail(l, ScriptMemoryBudget.NotEnoughMemory); }
        catch (Exception) { return LuaCallbacks.Fail(l, genericError); }
    }
}
