"""The soak (`make soak`): the portal held under load for minutes or hours while its parts fail
and come back, and a check that nothing was lost, doubled, stuck or done unasked."""
