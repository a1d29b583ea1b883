"""The MCP Python SDK (2.x) as the client of the built server over stdio: it asks to delete a
review, its elicitation callback answers as told (accept or decline), and it prints what
happened as JSON, for `tests/python_client.rs` to check."""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

BINARY, DATABASE, ANSWER = sys.argv[1], sys.argv[2], sys.argv[3]


async def main():
    asked = []

    async def answer(context, params):
        asked.append({"message": params.message, "schema": params.requested_schema})
        if ANSWER == "accept":
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action="decline")

    server = StdioServerParameters(command=BINARY, args=["--database", DATABASE])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=answer) as session:
            initialized = await session.initialize()
            page = await session.call_tool("reviews_list", {"limit": 1})
            review = page.structured_content["items"][0]
            deleted = await session.call_tool("reviews_delete", {"reviewId": review["id"]})
            after = await session.call_tool("reviews_list", {"reviewId": review["id"]})
            print(json.dumps({
                "protocol": initialized.protocol_version,
                "review": review,
                "asked": asked,
                "isError": deleted.is_error,
                "text": deleted.content[0].text,
                "stillThere": not after.is_error,
            }))


asyncio.run(main())
