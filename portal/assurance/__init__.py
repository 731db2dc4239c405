"""The Assurance interface: records, the XML/JSON codec and (later) the HTTP client.

Plain Python with no Django import, so the sandbox encodes with it too.
"""
