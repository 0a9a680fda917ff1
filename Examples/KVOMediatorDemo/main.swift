import KVOMediator

print("placeholder")
